import type { JWK } from 'jose';
import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { AppError, notFound, validationError, type ValidationDetail } from '../../errors.js';
import { newId } from '../../ids.js';
import { loadJose } from './jose.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import type { LtiResourceLinkRow } from '../../models/lti-launch.js';

export interface PlatformInput {
  name?: string | undefined;
  issuer: string;
  client_id: string;
  deployment_ids: string[];
  auth_url: string;
  token_url: string;
  jwks_url?: string | null | undefined;
  /** A PEM public key (SPKI) or one JWK as JSON: for a cloud LMS whose key set the appliance cannot fetch. */
  public_key?: string | null | undefined;
  /** Create unknown users at launch (Learner → student, Instructor → faculty); off by default. */
  provision_users?: boolean | undefined;
  /** Origins that may frame the tool's pages besides the issuer's and the sign-in URL's (Canvas: the school's own host). */
  frame_origins?: string[] | undefined;
}

function httpUrl(value: string, path: string, details: ValidationDetail[]): void {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') details.push({ path, message: 'Must be an http(s) URL.' });
  } catch {
    details.push({ path, message: 'Must be an absolute URL.' });
  }
}

/** The pasted key, checked by importing it: PEM (`-----BEGIN PUBLIC KEY-----`) or a JWK's JSON. Stored as given. */
async function checkPublicKey(text: string): Promise<string | null> {
  const trimmed = text.trim();
  const { importJWK, importSPKI } = await loadJose();
  try {
    if (trimmed.startsWith('{')) await importJWK(JSON.parse(trimmed) as JWK, 'RS256');
    else await importSPKI(trimmed, 'RS256');
    return null;
  } catch {
    return 'Must be an RSA public key: PEM (-----BEGIN PUBLIC KEY-----) or one JWK as JSON.';
  }
}

/** What a platform row holds of the input, checked: URLs, exactly one way to its keys, at least one deployment. */
interface CheckedPlatform {
  name: string;
  deployment_ids: string[];
  auth_url: string;
  token_url: string;
  jwks_url: string | null;
  public_key_pem: string | null;
  provision_users: boolean;
  frame_origins: string[] | null;
}

/** The rules a platform holds to, on registration and on every change; all problems at once as `422 validation_error`. */
async function checkPlatform(input: Omit<PlatformInput, 'client_id'>, details: ValidationDetail[] = []): Promise<CheckedPlatform> {
  httpUrl(input.issuer, 'issuer', details);
  httpUrl(input.auth_url, 'auth_url', details);
  httpUrl(input.token_url, 'token_url', details);
  const jwksUrl = input.jwks_url?.trim() || null;
  const publicKey = input.public_key?.trim() || null;
  if (jwksUrl) httpUrl(jwksUrl, 'jwks_url', details);
  if (!jwksUrl && !publicKey) details.push({ path: 'jwks_url', message: "Give the platform's key set URL or paste its public key." });
  if (jwksUrl && publicKey) details.push({ path: 'public_key', message: 'Give either a key set URL or a public key, not both.' });
  if (publicKey) {
    const problem = await checkPublicKey(publicKey);
    if (problem) details.push({ path: 'public_key', message: problem });
  }
  const frameOrigins = checkFrameOrigins(input.frame_origins ?? [], details);
  const deploymentIds = [...new Set(input.deployment_ids.map((id) => id.trim()).filter(Boolean))];
  if (deploymentIds.length === 0) details.push({ path: 'deployment_ids', message: 'At least one deployment id.' });
  if (details.length > 0) throw validationError(details);
  return {
    name: input.name?.trim() ?? '',
    deployment_ids: deploymentIds,
    auth_url: input.auth_url,
    token_url: input.token_url,
    jwks_url: jwksUrl,
    public_key_pem: publicKey,
    provision_users: input.provision_users ?? false,
    frame_origins: frameOrigins.length > 0 ? frameOrigins : null,
  };
}

/** Each an http(s) origin and nothing more (no path, no wildcard): `https://school.instructure.com`; kept as origins. */
function checkFrameOrigins(values: string[], details: ValidationDetail[]): string[] {
  const origins = new Set<string>();
  values.forEach((value, index) => {
    const trimmed = value.trim().replace(/\/$/, '');
    let url: URL | null = null;
    try {
      url = new URL(trimmed);
    } catch {
      // Reported below.
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== trimmed || url.hostname.includes('*')) {
      details.push({ path: `frame_origins.${index}`, message: 'Must be an origin: http(s)://host[:port], without a path or wildcard.' });
    } else origins.add(url.origin);
  });
  return [...origins];
}

/** Registers an LMS of the institution; issuer and client id together name one platform on the whole appliance. */
export async function addPlatform(tenant: Tenant, input: PlatformInput): Promise<LtiPlatformRow> {
  const details: ValidationDetail[] = [];
  if (!input.client_id.trim()) details.push({ path: 'client_id', message: 'Required.' });
  const checked = await checkPlatform(input, details);

  return tenant.inTransaction(async (tx) => {
    const taken = await tx.appliance.ltiPlatformExists(input.issuer, input.client_id.trim());
    if (taken) throw new AppError('conflict', 'A platform with this issuer and client id is already registered on this appliance.');
    return tx.ltiPlatforms.create({ id: newId('ltp'), issuer: input.issuer, client_id: input.client_id.trim(), ...checked });
  });
}

/** What may change on a registered platform: everything but its identity (issuer and client id). */
export type PlatformPatch = Partial<Omit<PlatformInput, 'issuer' | 'client_id'>>;

/**
 * Changes a registered platform in place, so its resource links, LMS subjects and score posts stay
 * (removing and registering it again would drop them). Giving a key set URL drops a pasted key and
 * the other way round; the result holds to the same rules as a registration.
 */
export async function updatePlatform(tenant: Tenant, id: string, patch: PlatformPatch): Promise<LtiPlatformRow> {
  return tenant.inTransaction(async (tx) => {
    const platform = await tx.ltiPlatforms.findById(id);
    if (!platform) throw notFound('platform');
    const keyGiven = patch.jwks_url !== undefined || patch.public_key !== undefined;
    const checked = await checkPlatform({
      issuer: platform.issuer,
      name: patch.name ?? platform.name,
      deployment_ids: patch.deployment_ids ?? platform.deployment_ids,
      auth_url: patch.auth_url ?? platform.auth_url,
      token_url: patch.token_url ?? platform.token_url,
      jwks_url: keyGiven ? (patch.jwks_url ?? null) : platform.jwks_url,
      public_key: keyGiven ? (patch.public_key ?? null) : platform.public_key_pem,
      provision_users: patch.provision_users ?? platform.provision_users,
      frame_origins: patch.frame_origins ?? platform.frame_origins ?? [],
    });
    await platform.update(checked, { transaction: tx.tx });
    return platform;
  });
}

export function listPlatforms(tenant: Tenant): Promise<LtiPlatformRow[]> {
  return tenant.ltiPlatforms.findAll({ order: [['created_at', 'ASC']] });
}

/** Removes a platform with its links, subjects, login states and score posts (their rows cascade). */
export async function removePlatform(tenant: Tenant, id: string): Promise<void> {
  const removed = await tenant.inTransaction((tx) => tx.ltiPlatforms.destroy({ id }));
  if (removed === 0) throw notFound('platform');
}

/** The platform with this id on any institution, with its institution's tenant (the CLI's `lti link` names only the platform). */
export async function platformTenant(db: Database, id: string): Promise<{ platform: LtiPlatformRow; tenant: Tenant }> {
  const platform = await db.models.LtiPlatform.findByPk(id);
  if (!platform) throw notFound('platform');
  return { platform, tenant: new Tenant(db, platform.institution_id) };
}

/** Ties a resource link of the platform to an exam of the same institution (made or moved). */
export async function linkResourceLink(
  tenant: Tenant,
  platformId: string,
  resourceLinkId: string,
  examId: string,
  extra: { title?: string | null; context_id?: string | null; line_item_url?: string | null } = {},
): Promise<LtiResourceLinkRow> {
  return tenant.inTransaction(async (tx) => {
    const platform = await tx.ltiPlatforms.findById(platformId, { attributes: ['id'] });
    if (!platform) throw notFound('platform');
    const exam = await tx.exams.findById(examId, { attributes: ['id'] });
    if (!exam) throw validationError([{ path: 'exam', message: `No exam "${examId}" in this institution.` }]);
    const existing = await tx.ltiResourceLinks.findOne({ where: { platform_id: platformId, resource_link_id: resourceLinkId } });
    if (existing) {
      existing.set({ exam_id: examId, ...definedOnly(extra) });
      return existing.save({ transaction: tx.tx });
    }
    return tx.ltiResourceLinks.create({
      id: newId('ltl'),
      platform_id: platformId,
      resource_link_id: resourceLinkId,
      exam_id: examId,
      title: extra.title ?? null,
      context_id: extra.context_id ?? null,
      line_item_url: extra.line_item_url ?? null,
    });
  });
}

function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined && value !== null)) as Partial<T>;
}

export function listResourceLinks(tenant: Tenant): Promise<LtiResourceLinkRow[]> {
  return tenant.ltiResourceLinks.findAll({ order: [['created_at', 'DESC']], limit: 500 });
}
