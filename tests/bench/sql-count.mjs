// Preloaded into the server (`node --import`) by `npm run bench -- --sql`. The appliance has no
// statement-counting hook of its own (Sequelize runs with `logging: false`), so this counts the
// statements handed to the sqlite3 driver. On SIGUSR2 it writes the count and the latest
// statements to BENCH_SQL_FILE.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const sqlite3 = createRequire(path.join(root, 'package.json'))('sqlite3');
const RECENT = 400;
let count = 0;
const recent = [];

for (const method of ['run', 'all', 'get', 'each', 'exec', 'prepare']) {
  const original = sqlite3.Database.prototype[method];
  sqlite3.Database.prototype[method] = function counted(sql, ...rest) {
    count += 1;
    recent.push(String(sql).slice(0, 300));
    if (recent.length > RECENT) recent.shift();
    return original.call(this, sql, ...rest);
  };
}

process.on('SIGUSR2', () => {
  if (process.env.BENCH_SQL_FILE) fs.writeFileSync(process.env.BENCH_SQL_FILE, JSON.stringify({ count, recent }));
});
