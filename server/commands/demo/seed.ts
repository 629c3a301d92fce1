import { Op } from 'sequelize';
import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import type { InstitutionRow } from '../../models/institution.js';
import { newId, randomToken } from '../../ids.js';
import type { PortalAccountRow } from '../../models/portal-account.js';
import { createApiKey } from '../institutions/api-keys.js';
import { createInstitution } from '../institutions/institutions.js';
import { hashPassword } from '../accounts/passwords.js';
import { seedAlphaPractice } from './alpha.js';
import { seedExamsAndSubmissions } from './exams.js';
import { seedPeopleAndGroups } from './people.js';
import { seededRandom } from './random.js';
import { seedPausedReceiver } from './webhooks.js';

/**
 * `demo seed`: a new, approved institution that looks lived in, built only through the commands
 * the API uses, so every row has its event and the event stream reads like a real term. Each run
 * makes another institution ("Demo Academy", "Demo Academy 2", …) and never touches existing data.
 * Names, groups, scores and outcomes are fixed; only ids, keys and timestamps differ between runs.
 */

export const DEMO_INSTITUTION_NAME = 'Demo Academy';

/** "Demo Academy", then "Demo Academy 2", … : the first name no institution has yet. */
async function nextDemoName(db: Database): Promise<string> {
  const rows = await db.models.Institution.findAll({ attributes: ['name'], where: { name: { [Op.like]: `${DEMO_INSTITUTION_NAME}%` } } });
  const taken = new Set(rows.map((row) => row.name));
  for (let n = 1; ; n += 1) {
    const candidate = n === 1 ? DEMO_INSTITUTION_NAME : `${DEMO_INSTITUTION_NAME} ${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

export interface DemoSeed {
  institution: InstitutionRow;
  /** The full key, every scope: shown once, never stored. */
  key: string;
  /** The demo institution's admin, so the portal can open it; the password is shown once, only its hash is stored. */
  admin: { account: PortalAccountRow; password: string };
}

export interface DemoSeedOptions {
  /** Base of the links in the mails the demo queues (guardian invitations). */
  portalUrl: string;
  /** DATA_DIR: the coding exam's archives are stored there, as an upload through the API would be. */
  dataDir: string;
}

/**
 * Builds the demo institution step by step, each step its own command and transaction (the launch
 * exchange and the guardian acceptance open their own, as they do for real callers). Webhook
 * deliveries are not made up: they follow from these events once an endpoint is registered.
 */
export async function seedDemo(db: Database, options: DemoSeedOptions): Promise<DemoSeed> {
  const rng = seededRandom(20_240_901);
  const institution = await createInstitution(db, { name: await nextDemoName(db), approve: true });
  const tenant = new Tenant(db, institution.id);
  // First, so every event below leaves a queued delivery in the webhook log.
  await seedPausedReceiver(tenant);
  const people = await seedPeopleAndGroups(db, tenant, options);
  await seedExamsAndSubmissions(db, tenant, institution, people, rng, options.dataDir);
  await seedAlphaPractice(db, tenant, institution, people, rng);

  const { key } = await createApiKey(tenant, { name: 'Demo key (all scopes)', scopes: ['all'] });
  return { institution, key, admin: await seedDemoAdmin(db, institution) };
}

/** `admin@<the institution's email domain>` with a random password, an active admin of the demo institution. */
async function seedDemoAdmin(db: Database, institution: InstitutionRow): Promise<DemoSeed['admin']> {
  const password = randomToken(16);
  const passwordHash = await hashPassword(password);
  const account = await db.sequelize.transaction(async (transaction) => {
    const created = await db.models.PortalAccount.create(
      {
        id: newId('acc'),
        email: `admin@${institution.email_domain ?? `${institution.id.toLowerCase()}.campusbridge.local`}`,
        password_hash: passwordHash,
        is_operator: false,
        status: 'active',
      },
      { transaction },
    );
    await db.models.Membership.create(
      { id: newId('mem'), institution_id: institution.id, account_id: created.id, role: 'admin', status: 'active' },
      { transaction },
    );
    return created;
  });
  return { account, password };
}
