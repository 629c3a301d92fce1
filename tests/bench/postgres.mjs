// `npm run bench -- --database=postgres`: a throwaway PostgreSQL cluster (Debian's postgresql
// package) in a temp folder, on 127.0.0.1 only, and one database on it for the appliance. The
// same steps as tests/helpers/postgres.ts, which the bench cannot import (TypeScript). Unlike the
// tests' cluster, fsync and synchronous commit stay on: the figures are those of a durable database.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const DEBIAN_ROOT = '/usr/lib/postgresql';

/** Where Debian installs the server's programs (`/usr/lib/postgresql/<major>/bin`), newest first. */
function postgresBinDir() {
  const majors = fs.existsSync(DEBIAN_ROOT)
    ? fs
        .readdirSync(DEBIAN_ROOT)
        .filter((name) => fs.existsSync(path.join(DEBIAN_ROOT, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!majors.length) throw new Error(`--database=postgres needs PostgreSQL's server programs in ${DEBIAN_ROOT}/<major>/bin (apt-get install postgresql)`);
  return path.join(DEBIAN_ROOT, majors[0], 'bin');
}

/** A port on 127.0.0.1 that nothing listens on, taken from the OS and released. */
async function freePort() {
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * initdb and pg_ctl in a temp folder, trust authentication, TCP on 127.0.0.1 and a Unix socket in
 * that folder (nothing but this machine reaches it). As root, the programs run as the `postgres`
 * user the package creates, since initdb refuses root. Answers the database's URL, the server's
 * version and `stop()`, which removes the cluster and its folder.
 */
export async function startBenchCluster() {
  const binDir = postgresBinDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'campusbridge-bench-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const run = (program, args) => {
    const [command, commandArgs] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(binDir, program), ...args]] : [path.join(binDir, program), args];
    const result = spawnSync(command, commandArgs, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${program} failed: ${result.stderr || result.stdout}`);
    return result.stdout;
  };
  const data = path.join(dir, 'data');
  let started = false;
  const stop = () => {
    if (started) run('pg_ctl', ['-D', data, '-m', 'fast', 'stop']);
    started = false;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale', 'C.UTF-8']);
    const port = await freePort();
    run('pg_ctl', ['-D', data, '-o', `-h 127.0.0.1 -p ${port} -k ${dir}`, '-l', path.join(dir, 'log'), '-w', 'start']);
    started = true;
    const psql = (sql) => run('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-XAtqc', sql]).trim();
    psql('CREATE DATABASE campusbridge');
    return { url: `postgres://postgres@127.0.0.1:${port}/campusbridge`, version: `PostgreSQL ${psql('SHOW server_version')}`, stop };
  } catch (error) {
    stop();
    throw error;
  }
}
