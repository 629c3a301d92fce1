import type { Database } from '../../db/index.js';
import type { Tenant } from '../../db/tenant.js';
import type { LtiResourceLinkRow } from '../../models/lti-launch.js';
import type { LtiNrpsRunRow } from '../../models/lti-nrps.js';
import type { LtiPlatformRow } from '../../models/lti.js';
import { lastMembersRuns } from './nrps.js';
import { listPlatforms, listResourceLinks } from './platforms.js';
import { toolConfig, type ToolConfig } from './tool-config.js';

/** What the portal's LTI page shows: the tool's side, the platforms, the links and each link's newest class list sync. */
export interface LtiOverview {
  tool: ToolConfig;
  platforms: LtiPlatformRow[];
  links: LtiResourceLinkRow[];
  lastSyncs: Map<string, LtiNrpsRunRow>;
}

/** The institution's LTI setup, read in one go for its portal page. */
export async function readLtiOverview(db: Database, tenant: Tenant, publicUrl: string): Promise<LtiOverview> {
  const [tool, platforms, links] = await Promise.all([toolConfig(db, tenant, publicUrl), listPlatforms(tenant), listResourceLinks(tenant)]);
  const lastSyncs = await lastMembersRuns(
    tenant,
    links.map((link) => link.id),
  );
  return { tool, platforms, links, lastSyncs };
}
