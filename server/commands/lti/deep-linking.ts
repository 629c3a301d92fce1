import { loadJose } from './jose.js';
import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { AppError, notFound } from '../../errors.js';
import { randomToken } from '../../ids.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import type { PersonRow } from '../../models/person.js';
import { CLAIM, deepLinkReturnUrl, LTI_VERSION } from './claims.js';
import { toolUrls } from './launch-login.js';
import { signingKey, toolKeySet, TOOL_KEY_ALG } from './tool-keys.js';

/** The picker's context (who asked, where to return) is a JWT signed by the tool's own key, valid 15 minutes. */
const PICKER_AUDIENCE = 'campusbridge:lti-deep-linking';
const PICKER_TTL = '15m';

export interface PickerExam {
  id: string;
  title: string;
  max_score: number | null;
  status: string;
}

export interface DeepLinkingPicker {
  context: string;
  exams: PickerExam[];
  institution_name: string;
}

/** What the teacher sees after an LtiDeepLinkingRequest: the institution's exams, and the signed context the choice is posted with. */
export async function openDeepLinkingPicker(
  db: Database,
  request: { platform: LtiPlatformRow; person: PersonRow; claims: Record<string, unknown> },
): Promise<DeepLinkingPicker> {
  const settings = request.claims[CLAIM.deepLinkingSettings] as { data?: unknown };
  const returnUrl = deepLinkReturnUrl(request.claims);
  const { kid, key } = await signingKey(db);
  const { SignJWT } = await loadJose();
  const context = await new SignJWT({
    platform_id: request.platform.id,
    deployment_id: request.claims[CLAIM.deploymentId],
    return_url: returnUrl,
    ...(typeof settings.data === 'string' ? { data: settings.data } : {}),
  })
    .setProtectedHeader({ alg: TOOL_KEY_ALG, kid })
    .setIssuer(PICKER_AUDIENCE)
    .setAudience(PICKER_AUDIENCE)
    .setSubject(request.person.id)
    .setIssuedAt()
    .setExpirationTime(PICKER_TTL)
    .sign(key);
  const tenant = new Tenant(db, request.platform.institution_id);
  const exams = await tenant.exams.findAll({ attributes: ['id', 'title', 'max_score', 'status'], order: [['created_at', 'DESC']], limit: 200 });
  const institution = await tenant.institution();
  return {
    context,
    institution_name: institution.name,
    exams: exams.filter((exam) => exam.status !== 'closed').map((exam) => ({ id: exam.id, title: exam.title, max_score: exam.max_score, status: exam.status })),
  };
}

export interface DeepLinkingResponse {
  return_url: string;
  jwt: string;
  /** Whose origins may frame the page that posts it back. */
  platform: LtiPlatformRow;
}

/**
 * The teacher's choice as an LtiDeepLinkingResponse (Deep Linking 2.0 §4.2): signed by the tool's
 * key, iss the client id, aud the platform, one ltiResourceLink to the launch URL with the exam in
 * a custom parameter (the first launch links it) and a line item so the LMS makes a grade column.
 */
export async function completeDeepLinking(db: Database, context: string, examId: string, publicUrl: string): Promise<DeepLinkingResponse> {
  let claims;
  try {
    const { createLocalJWKSet, jwtVerify } = await loadJose();
    const verified = await jwtVerify(context, createLocalJWKSet(await toolKeySet(db)), { issuer: PICKER_AUDIENCE, audience: PICKER_AUDIENCE });
    claims = verified.payload as { platform_id: string; deployment_id: string; return_url: string; data?: string };
  } catch {
    throw new AppError('LAUNCH_TOKEN_INVALID', 'This exam picker has expired: open it again from the LMS.');
  }
  const platform = await db.models.LtiPlatform.findByPk(claims.platform_id);
  if (!platform) throw notFound('platform');
  const exam = await new Tenant(db, platform.institution_id).exams.findById(examId);
  if (!exam) throw notFound('exam');
  const { kid, key } = await signingKey(db);
  const item = {
    type: 'ltiResourceLink',
    title: exam.title,
    url: toolUrls(publicUrl).launch_url,
    custom: { exam_id: exam.id },
    ...(exam.max_score !== null ? { lineItem: { scoreMaximum: exam.max_score, label: exam.title, resourceId: exam.id } } : {}),
  };
  const { SignJWT } = await loadJose();
  const jwt = await new SignJWT({
    nonce: randomToken(32),
    [CLAIM.deploymentId]: claims.deployment_id,
    [CLAIM.messageType]: 'LtiDeepLinkingResponse',
    [CLAIM.version]: LTI_VERSION,
    [CLAIM.contentItems]: [item],
    ...(claims.data !== undefined ? { [CLAIM.data]: claims.data } : {}),
  })
    .setProtectedHeader({ alg: TOOL_KEY_ALG, kid, typ: 'JWT' })
    .setIssuer(platform.client_id)
    .setAudience(platform.issuer)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key);
  return { return_url: claims.return_url, jwt, platform };
}
