import type { JWK } from 'jose';
import type { Database } from '../../db/index.js';
import type { Tenant } from '../../db/tenant.js';
import { AGS_SCORE_SCOPE, NRPS_SCOPE } from './claims.js';
import { toolUrls } from './launch-login.js';
import { toolPublicKey } from './tool-keys.js';

export interface ToolConfig {
  login_url: string;
  launch_url: string;
  redirect_urls: string[];
  jwks_url: string;
  public_jwk: JWK;
  deep_linking_url: string;
  public_key_pem: string;
  /** Canvas's "Enter JSON" developer key configuration. */
  canvas_config: Record<string, unknown>;
}

/**
 * The tool's side of the registration, on `public_url`: what an LMS administrator pastes into
 * the LMS. The URLs are the appliance's; the institution names itself in the Canvas title.
 */
export async function toolConfig(db: Database, tenant: Tenant, publicUrl: string): Promise<ToolConfig> {
  const urls = toolUrls(publicUrl);
  const institution = await tenant.institution();
  const { jwk, pem } = await toolPublicKey(db);
  return {
    login_url: urls.login_url,
    launch_url: urls.launch_url,
    redirect_urls: [urls.launch_url],
    jwks_url: urls.jwks_url,
    public_jwk: jwk,
    deep_linking_url: urls.deep_linking_url,
    public_key_pem: pem,
    canvas_config: {
      title: `CampusBridge (${institution.name})`,
      description: 'Exams of the school on its CampusBridge appliance, with grades sent back to the gradebook.',
      oidc_initiation_url: urls.login_url,
      target_link_uri: urls.launch_url,
      public_jwk_url: urls.jwks_url,
      scopes: ['https://purl.imsglobal.org/spec/lti-ags/scope/lineitem', AGS_SCORE_SCOPE, NRPS_SCOPE],
      extensions: [
        {
          platform: 'canvas.instructure.com',
          privacy_level: 'public',
          settings: {
            placements: [
              { placement: 'assignment_selection', message_type: 'LtiDeepLinkingRequest', target_link_uri: urls.deep_linking_url },
              { placement: 'link_selection', message_type: 'LtiDeepLinkingRequest', target_link_uri: urls.deep_linking_url },
            ],
          },
        },
      ],
      custom_fields: {},
    },
  };
}
