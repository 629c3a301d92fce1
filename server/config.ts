import os from 'node:os';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { AppError } from './errors.js';
import { parsePrivateHosts, parsePublicUrl } from './settings/values.js';

/** The per-user application data folder, the same place Electron's `app.getPath('appData')` names. */
export function defaultAppDataDir(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  const home = os.homedir();
  if (platform === 'win32') return env.APPDATA ?? path.join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME ?? path.join(home, '.config');
}

/** An environment variable that sets an appliance setting: unset or empty is null (the stored setting applies). */
const settingValue =
  (parse: (raw: string) => string) =>
  (value: string | undefined, context: z.RefinementCtx): string | null => {
    if (value === undefined || value.trim() === '') return null;
    try {
      return parse(value);
    } catch (error) {
      context.addIssue({ code: 'custom', message: error instanceof AppError ? error.message : String(error) });
      return z.NEVER;
    }
  };

/** `OUTBOUND_PRIVATE_HOSTS` (or its old name): `1`/`true` mean `all`, `0`/`false` mean `off`, else the setting's own values. */
const privateHostsVariable = z
  .string()
  .optional()
  .transform((value) => (value === '1' || value === 'true' ? 'all' : value === '0' || value === 'false' ? 'off' : value))
  .transform(settingValue(parsePrivateHosts));

const retrySchedule = z
  .string()
  .regex(/^\d+(,\d+)*$/, 'a comma-separated list of seconds')
  .transform((value) => value.split(',').map(Number))
  .refine((gaps) => gaps.length >= 1, 'at least one gap');

/** Express's names for address ranges, accepted in `TRUST_PROXY` beside addresses and CIDR ranges. */
const NAMED_PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * `TRUST_PROXY`: which reverse proxies may tell the appliance the client's address and scheme
 * (`X-Forwarded-For`, `X-Forwarded-Proto`). Unset or `off`: none, the connection's own address
 * counts. A number of hops (1–10), or a comma-separated list of the proxies' addresses, CIDR
 * ranges and `loopback`, `linklocal`, `uniquelocal`. Trusting every sender (`true`, or a range
 * wider than /8) is refused: anyone could then choose the address their sign-in failures are
 * counted against. A hop count is believed only from this computer or a private network
 * (server/http/trust-proxy.ts).
 */
function parseTrustProxy(value: string | undefined, context: z.RefinementCtx): false | number | string[] {
  const raw = value?.trim() ?? '';
  if (raw === '' || raw === 'off' || raw === 'false' || raw === '0') return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops >= 1 && hops <= 10) return hops;
    context.addIssue({ code: 'custom', message: 'a number of proxy hops must be 1 to 10' });
    return z.NEVER;
  }
  if (raw === 'true' || raw === 'all' || raw === '*') {
    context.addIssue({
      code: 'custom',
      message: 'name the proxies (addresses, CIDR ranges, loopback, linklocal, uniquelocal) or a hop count; trusting every sender is refused',
    });
    return z.NEVER;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !NAMED_PROXY_RANGES.includes(entry) && !ipaddr.isValid(entry) && !cidrOf(entry));
  if (bad.length > 0) {
    context.addIssue({ code: 'custom', message: `not an address, CIDR range, loopback, linklocal or uniquelocal: ${bad.join(', ')}` });
    return z.NEVER;
  }
  // 0.0.0.0/0, or 0.0.0.0/1 with 128.0.0.0/1, is every sender again, by another name.
  const wide = entries.filter((entry) => {
    const cidr = cidrOf(entry);
    return cidr !== null && cidr[1] < (cidr[0].kind() === 'ipv4' ? NARROWEST_PROXY_PREFIX.ipv4 : NARROWEST_PROXY_PREFIX.ipv6);
  });
  if (wide.length > 0) {
    context.addIssue({
      code: 'custom',
      message: `too wide to name a proxy: ${wide.join(', ')}; a range is /${NARROWEST_PROXY_PREFIX.ipv4} or narrower (IPv6: /${NARROWEST_PROXY_PREFIX.ipv6}), or name the proxy's own address`,
    });
    return z.NEVER;
  }
  return entries;
}

/** The widest ranges TRUST_PROXY takes: a campus network fits in a /8 (IPv6: the private fc00::/7); anything wider is much of the internet. */
const NARROWEST_PROXY_PREFIX = { ipv4: 8, ipv6: 7 };

function cidrOf(entry: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | null {
  try {
    return ipaddr.parseCIDR(entry);
  } catch {
    return null;
  }
}

/** `api` serves HTTP and runs no background work; `worker` runs it and serves only /healthz; `all` does both. */
export const PROCESS_ROLES = ['api', 'worker', 'all'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4780),
  DATA_DIR: z.string().min(1).optional(),
  PUBLIC_URL: z.string().optional().transform(settingValue(parsePublicUrl)),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // `1` means `all`; otherwise the setting's own values (`off`, `all`, hosts and ranges).
  OUTBOUND_PRIVATE_HOSTS: privateHostsVariable,
  // The variable's name before outbound requests other than webhooks obeyed it; OUTBOUND_PRIVATE_HOSTS wins.
  WEBHOOK_ALLOW_PRIVATE_HOSTS: privateHostsVariable,
  WEBHOOK_RETRY_SCHEDULE: retrySchedule.default([60, 300, 1800, 7200, 43200]),
  WEBHOOK_SWEEP_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  RATE_LIMIT_STORE: z
    .string()
    .default('memory')
    .refine((value) => value === 'memory' || /^rediss?:\/\/[^/]/.test(value), {
      message: 'must be memory or redis://host:port[/db] (rediss:// for TLS)',
    }),
  TRUST_PROXY: z.string().optional().transform(parseTrustProxy),
  ROLE: z.enum(PROCESS_ROLES, { message: 'must be api, worker or all (--role or ROLE)' }).default('all'),
  DATABASE_URL: z
    .string()
    .optional()
    .refine((value) => value === undefined || value === '' || /^(sqlite:|postgres(ql)?:\/\/)/.test(value), {
      message: 'must be sqlite:<file> or postgres://user:password@host:port/database (SQLite in DATA_DIR when unset)',
    }),
});

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** The SQLite file: the database itself unless `databaseUrl` is set; backups and restores work on it. */
  databaseFile: string;
  /** `DATABASE_URL` when it names PostgreSQL; null for SQLite (the default). */
  databaseUrl: string | null;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  /** `PUBLIC_URL`: when set, wins over the `public_url` setting (settings/appliance-settings.ts). */
  publicUrl: string | null;
  /** Requests the appliance makes (webhooks, LTI platforms, the SIS): server/outbound/. */
  outbound: {
    /** `OUTBOUND_PRIVATE_HOSTS` (or `WEBHOOK_ALLOW_PRIVATE_HOSTS`): when set, wins over the `outbound_private_hosts` setting. */
    privateHosts: string | null;
  };
  webhooks: {
    retryScheduleSeconds: number[];
    sweepSeconds: number;
    timeoutMs: number;
  };
  /** Where the per-key request counters live: this process's memory, or a Redis shared by every process. */
  rateLimitStore: { kind: 'memory' } | { kind: 'redis'; url: string };
  /** What this process does (docs/decisions/process-roles.md): serve the API, run the background work, or both. */
  role: ProcessRole;
  /** `TRUST_PROXY`, as Express's `trust proxy` takes it: false (none), a hop count, or the proxies' addresses and ranges. */
  trustProxy: false | number | string[];
  /** How long after start-up (and after a wake) missed job runs are caught up (server/jobs/scheduler.ts); tests shorten it. */
  jobsCatchUpDelayMs: number;
  /**
   * Whether jobs run on their schedules here (true in the appliance). Tests of a job that runs every
   * minute turn it off, so that `runNow` is the only run and the minute never races the test.
   */
  jobsOnSchedule: boolean;
}

export class ConfigError extends Error {}

/** Every environment variable the appliance reads, parsed and typed in one place. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(overrides.dataDir ?? e.DATA_DIR ?? path.join(defaultAppDataDir(), 'campusbridge'));
  const postgres = e.DATABASE_URL && /^postgres(ql)?:\/\//.test(e.DATABASE_URL) ? e.DATABASE_URL : null;
  const databaseFile = e.DATABASE_URL && !postgres ? e.DATABASE_URL.replace(/^sqlite:(\/\/)?/, '') : path.join(dataDir, 'campusbridge.sqlite');
  return {
    host: e.HOST,
    port: e.PORT,
    dataDir,
    databaseFile,
    databaseUrl: postgres,
    logLevel: e.LOG_LEVEL,
    publicUrl: e.PUBLIC_URL,
    outbound: { privateHosts: e.OUTBOUND_PRIVATE_HOSTS ?? e.WEBHOOK_ALLOW_PRIVATE_HOSTS },
    webhooks: {
      retryScheduleSeconds: e.WEBHOOK_RETRY_SCHEDULE,
      sweepSeconds: e.WEBHOOK_SWEEP_SECONDS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    },
    rateLimitStore: e.RATE_LIMIT_STORE === 'memory' ? { kind: 'memory' } : { kind: 'redis', url: e.RATE_LIMIT_STORE },
    role: e.ROLE,
    trustProxy: e.TRUST_PROXY,
    jobsCatchUpDelayMs: 30_000,
    jobsOnSchedule: true,
    ...overrides,
  };
}

/**
 * The environment as the headless entry sees it: `--role <role>` (or `--role=<role>`) on the
 * command line wins over `ROLE`. Anything else on the command line is refused, not ignored.
 */
export function environmentWithFlags(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  let role: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg.startsWith('--role=')) role = arg.slice('--role='.length);
    else if (arg === '--role') {
      if (i + 1 >= argv.length) throw new ConfigError('invalid configuration: --role needs a value: api, worker or all');
      role = argv[(i += 1)];
    } else throw new ConfigError(`invalid configuration: unknown argument ${JSON.stringify(arg)}; the only option is --role api|worker|all`);
  }
  return role === undefined ? env : { ...env, ROLE: role };
}
