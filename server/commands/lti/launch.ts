import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { ExamRow } from '../../models/exam.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import type { LtiResourceLinkRow } from '../../models/lti-launch.js';
import type { PersonRow } from '../../models/person.js';
import { mintLaunchToken } from '../learner/sso.js';
import { CLAIM, isTeacher } from './claims.js';
import { framedLaunchUrl } from './frame.js';
import { afterInstructorLaunch } from './nrps.js';
import type { OutboundRules } from './platform-keys.js';
import { refused } from './launch-login.js';
import { verifyLaunch } from './launch-verify.js';
import { assertSupportedRole, matchPerson } from './launch-person.js';

/** The launch's resource link row, made on first sight; an unlinked one is linked through the deep-linked `exam_id` custom parameter. */
async function resourceLinkOf(
  tenant: Tenant,
  platform: LtiPlatformRow,
  claims: Record<string, unknown>,
): Promise<{ link: LtiResourceLinkRow; exam: ExamRow | null }> {
  const resource = claims[CLAIM.resourceLink] as { id?: unknown; title?: unknown } | undefined;
  if (!resource || typeof resource.id !== 'string' || !resource.id) throw refused('the resource link claim has no id');
  const ags = claims[CLAIM.agsEndpoint] as { lineitem?: unknown } | undefined;
  const lineItem = typeof ags?.lineitem === 'string' ? ags.lineitem : null;
  const context = claims[CLAIM.context] as { id?: unknown } | undefined;
  const custom = claims[CLAIM.custom] as { exam_id?: unknown } | undefined;
  return tenant.inTransaction(async (tx) => {
    let link = await tx.ltiResourceLinks.findOne({ where: { platform_id: platform.id, resource_link_id: resource.id as string } });
    if (!link) {
      link = await tx.ltiResourceLinks.create({
        id: newId('ltl'),
        platform_id: platform.id,
        resource_link_id: resource.id as string,
        exam_id: null,
        title: typeof resource.title === 'string' ? resource.title.slice(0, 500) : null,
        context_id: typeof context?.id === 'string' ? context.id.slice(0, 255) : null,
        line_item_url: lineItem,
      });
    } else if (lineItem && link.line_item_url !== lineItem) {
      link.set({ line_item_url: lineItem });
      await link.save({ transaction: tx.tx });
    }
    if (!link.exam_id && typeof custom?.exam_id === 'string') {
      const exam = await tx.exams.findById(custom.exam_id, { attributes: ['id'] });
      if (exam) {
        link.set({ exam_id: exam.id });
        await link.save({ transaction: tx.tx });
      }
    }
    const exam = link.exam_id ? await tx.exams.findById(link.exam_id) : null;
    return { link, exam };
  });
}

export type LaunchOutcome =
  { kind: 'redirect'; location: string } | { kind: 'deep_linking'; platform: LtiPlatformRow; person: PersonRow; claims: Record<string, unknown> };

/**
 * A verified resource link launch opens the learner page with a single-use launch token (the same
 * tokens as `POST /v1/sso/tokens`), framable by the platform (frame.ts): a student's on the linked
 * exam; a teacher's limited to grading that exam's submissions (no portal account needed, the
 * Instructor role of this token is the grant). A deep linking request goes to the exam picker.
 */
export async function completeLaunch(db: Database, idToken: string, state: string, rules: OutboundRules, publicUrl: string): Promise<LaunchOutcome> {
  const { platform, claims, messageType, storageTarget } = await verifyLaunch(db, idToken, state, rules);
  const institution = await db.models.Institution.findByPk(platform.institution_id);
  if (!institution || institution.status !== 'approved') throw new AppError('institution_not_approved', 'This institution is not approved on the appliance.');
  assertSupportedRole(claims);
  const tenant = new Tenant(db, platform.institution_id);
  const person = await matchPerson(tenant, platform, claims);
  const teacher = isTeacher(claims[CLAIM.roles]);
  if (messageType === 'LtiDeepLinkingRequest') {
    if (!teacher) throw new AppError('forbidden', 'Only a teacher of the course can pick an exam for the LMS.');
    return { kind: 'deep_linking', platform, person, claims };
  }
  const { link, exam } = await resourceLinkOf(tenant, platform, claims);
  if (!exam) {
    throw new AppError(
      'not_found',
      `This LMS link (resource link ${link.resource_link_id}) is not linked to an exam yet: a teacher links it by deep linking, or the school with "lti link".`,
    );
  }
  // The course's class list (NRPS), when the platform offers it: read in the background, never holding the launch.
  if (teacher) afterInstructorLaunch(db, platform, claims, link, rules);
  const minted = teacher
    ? await mintLaunchToken(tenant, { email: person.login_email, app: exam.app, grading_exam_id: exam.id, ttl_seconds: 60 })
    : await mintLaunchToken(tenant, { email: person.login_email, app: exam.app, redirect: `exam:${exam.id}`, ttl_seconds: 60 });
  return { kind: 'redirect', location: framedLaunchUrl(publicUrl, minted.token, platform, storageTarget) };
}
