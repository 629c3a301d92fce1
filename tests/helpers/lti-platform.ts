import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/**
 * A minimal LTI 1.3 platform (an LMS) on 127.0.0.1, written from the 1EdTech specifications, not
 * from the appliance's code: LTI 1.3 Core (OIDC third-party initiated login, id_token claims),
 * Deep Linking 2.0 (LtiDeepLinkingRequest, the response JWT posted to deep_link_return_url),
 * Assignment and Grade Services 2.0 (scores POSTed to {lineitem}/scores), Names and Role
 * Provisioning Services 2.0 (a context's members, paged) and the 1EdTech Security Framework
 * (client_credentials with a JWT client assertion, RFC 7523).
 */

export const LTI = {
  messageType: 'https://purl.imsglobal.org/spec/lti/claim/message_type',
  version: 'https://purl.imsglobal.org/spec/lti/claim/version',
  deploymentId: 'https://purl.imsglobal.org/spec/lti/claim/deployment_id',
  targetLinkUri: 'https://purl.imsglobal.org/spec/lti/claim/target_link_uri',
  resourceLink: 'https://purl.imsglobal.org/spec/lti/claim/resource_link',
  roles: 'https://purl.imsglobal.org/spec/lti/claim/roles',
  context: 'https://purl.imsglobal.org/spec/lti/claim/context',
  deepLinkingSettings: 'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings',
  contentItems: 'https://purl.imsglobal.org/spec/lti-dl/claim/content_items',
  data: 'https://purl.imsglobal.org/spec/lti-dl/claim/data',
  agsEndpoint: 'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint',
  learner: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner',
  instructor: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor',
  scoreScope: 'https://purl.imsglobal.org/spec/lti-ags/scope/score',
  /** Names and Role Provisioning Services 2.0 (§3.6.1 the claim, §3.3 the media type, §3.2 the scope). */
  nrpsClaim: 'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice',
  nrpsScope: 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly',
  nrpsMediaType: 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json',
} as const;

/** A member of a context as NRPS 2.0 §2.2 describes it (the fields a platform may send). */
export interface NrpsMember {
  user_id: string;
  roles: string[];
  /** `Active` (the default when absent), `Inactive` or `Deleted`. */
  status?: 'Active' | 'Inactive' | 'Deleted';
  name?: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  lis_person_sourcedid?: string;
}

/** A context (course) whose members the platform serves. */
export interface NrpsContext {
  id: string;
  label?: string;
  title: string;
  members: NrpsMember[];
}

export interface RecordedMembershipRequest {
  url: string;
  accept: string | undefined;
  authorization: string | undefined;
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** Who the next authorization request signs in, and for what. */
export interface LaunchPlan {
  sub: string;
  email?: string;
  roles: string[];
  messageType?: 'LtiResourceLinkRequest' | 'LtiDeepLinkingRequest';
  resourceLinkId?: string;
  lineItem?: string;
  /** Extra or replaced claims (an expired exp, a wrong aud …). */
  claims?: Record<string, unknown>;
  /** Sign with this key instead of the published one (a forgery, or a kid the key set lacks). */
  signWith?: SigningKey;
  /** Leave `kid` out of the JWS header (a certification "known bad payload"). */
  omitKid?: boolean;
}

export interface RecordedScore {
  path: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export interface AuthorizationAnswer {
  /** Where the auto-submitting form posts (the tool's redirect_uri). */
  action: string;
  id_token: string;
  state: string;
}

export interface RecordedRegistration {
  authorization: string | undefined;
  contentType: string | undefined;
  body: Record<string, unknown>;
}

export class LtiPlatform {
  /** The tool's client id here: fixed, or the one the registration endpoint gave (Dynamic Registration). */
  clientId = 'campusbridge-tool';
  readonly deploymentId = 'deployment-1';
  issuer = '';
  origin = '';
  /** The tool's key set URL, for verifying its client assertions and deep linking responses. */
  toolJwksUrl = '';
  published: SigningKey[] = [];
  plan: LaunchPlan | null = null;
  /** Authorization requests as received (query parameters). */
  readonly authRequests: Array<Record<string, string>> = [];
  readonly tokenRequests: Array<{ assertion: JWTPayload; header: Record<string, unknown>; scope: string }> = [];
  readonly scores: RecordedScore[] = [];
  readonly deepLinkReturns: string[] = [];
  /** Client registrations received (LTI Dynamic Registration 1.0 §3.5). */
  readonly registrations: RecordedRegistration[] = [];
  /** The bearer the registration endpoint requires (the registration_token the platform hands the tool). */
  registrationToken = 'reg-token-1';
  /** Replaced or extra fields of the OpenID configuration (a foreign issuer …). */
  configurationOverrides: Record<string, unknown> = {};
  /** Answers for the next score POSTs (500, 503 …) before they are accepted. */
  failScores: number[] = [];
  /** NRPS: the contexts whose class lists the platform serves, by context id. */
  readonly contexts = new Map<string, NrpsContext>();
  /** NRPS: members per page at most, whatever `limit` the tool asks for (so a class list pages). */
  nrpsPageSize = 2;
  /** NRPS: answers for the next membership requests (401, 500 …) before they are served. */
  failMemberships: number[] = [];
  readonly membershipRequests: RecordedMembershipRequest[] = [];
  private readonly issuedTokens = new Set<string>();
  /** The scope each issued token was granted. */
  private readonly tokenScopes = new Map<string, string>();
  private server: http.Server | null = null;

  static async start(): Promise<LtiPlatform> {
    const platform = new LtiPlatform();
    platform.published = [await newKey('platform-key-1')];
    platform.server = http.createServer((req, res) => {
      platform.handle(req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
    await new Promise<void>((resolve) => platform.server!.listen(0, '127.0.0.1', resolve));
    const { port } = platform.server.address() as AddressInfo;
    platform.origin = `http://127.0.0.1:${port}`;
    platform.issuer = `${platform.origin}/lms`;
    return platform;
  }

  get authUrl() {
    return `${this.origin}/auth`;
  }
  get tokenUrl() {
    return `${this.origin}/token`;
  }
  get jwksUrl() {
    return `${this.origin}/jwks`;
  }
  lineItemUrl(id: string) {
    return `${this.origin}/lineitems/${id}`;
  }
  get openidConfigurationUrl() {
    return `${this.origin}/lms/.well-known/openid-configuration`;
  }
  get deepLinkReturnUrl() {
    return `${this.origin}/deep-link-return`;
  }
  /** NRPS 2.0 §3.6.1: the context's memberships URL, as the claim carries it. */
  membershipsUrl(contextId: string) {
    return `${this.origin}/api/contexts/${encodeURIComponent(contextId)}/memberships`;
  }
  /** The NRPS claim of a launch in this context. */
  nrpsClaim(contextId: string) {
    return { context_memberships_url: this.membershipsUrl(contextId), service_versions: ['2.0'] };
  }
  /** Every access token issued so far stops working (they expired). */
  expireTokens(): void {
    this.issuedTokens.clear();
    this.tokenScopes.clear();
  }

  /** A key the key set does not publish (for forgeries and unknown kids). */
  static unpublishedKey(kid: string): Promise<SigningKey> {
    return newKey(kid);
  }

  /** Platform-side key rotation: a new key signs and is published; the old leaves the key set. */
  async rotateKey(kid: string): Promise<void> {
    this.published = [await newKey(kid)];
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** The id_token for an authentication request, per LTI 1.3 Core §5.1.2 and OIDC Core §2. */
  async idToken(request: Record<string, string>, plan: LaunchPlan): Promise<string> {
    const key = plan.signWith ?? this.published[0]!;
    const now = Math.floor(Date.now() / 1000);
    const messageType = plan.messageType ?? 'LtiResourceLinkRequest';
    const claims: Record<string, unknown> = {
      iss: this.issuer,
      aud: this.clientId,
      sub: plan.sub,
      iat: now,
      exp: now + 300,
      nonce: request.nonce,
      ...(plan.email ? { email: plan.email } : {}),
      [LTI.messageType]: messageType,
      [LTI.version]: '1.3.0',
      [LTI.deploymentId]: this.deploymentId,
      [LTI.targetLinkUri]: request.redirect_uri,
      [LTI.roles]: plan.roles,
      [LTI.context]: { id: 'course-42', label: 'CS 101', title: 'Computer Science 101' },
    };
    if (messageType === 'LtiResourceLinkRequest') {
      claims[LTI.resourceLink] = { id: plan.resourceLinkId ?? 'rl-1', title: 'Exam in the LMS' };
      if (plan.lineItem) {
        claims[LTI.agsEndpoint] = { scope: [LTI.scoreScope], lineitem: plan.lineItem, lineitems: `${this.origin}/lineitems` };
      }
    } else {
      claims[LTI.deepLinkingSettings] = {
        deep_link_return_url: this.deepLinkReturnUrl,
        accept_types: ['ltiResourceLink'],
        accept_presentation_document_targets: ['iframe', 'window'],
        data: 'opaque-platform-data-7',
      };
    }
    // A claim set to undefined is left out (JSON has no undefined).
    Object.assign(claims, plan.claims);
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', ...(plan.omitKid ? {} : { kid: key.kid }), typ: 'JWT' }).sign(key.privateKey);
  }

  /** Follows the tool's redirect to the authorization endpoint and reads the form it answers with. */
  async authorize(location: string): Promise<AuthorizationAnswer> {
    const res = await fetch(location, { redirect: 'manual' });
    const html = await res.text();
    if (res.status !== 200) throw new Error(`authorization refused ${res.status}: ${html}`);
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
    return { action: /action="([^"]*)"/.exec(html)?.[1] ?? '', id_token: field('id_token'), state: field('state') };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
    };

    if (req.method === 'GET' && url.pathname === '/jwks') return json(200, { keys: this.published.map((key) => key.publicJwk) });

    if (req.method === 'GET' && url.pathname === '/auth') {
      const request = Object.fromEntries(url.searchParams.entries());
      this.authRequests.push(request);
      // LTI 1.3 Core §5.1.1.2: the fixed parameters of the authentication request.
      const problems = [
        request.scope === 'openid' ? null : 'scope',
        request.response_type === 'id_token' ? null : 'response_type',
        request.response_mode === 'form_post' ? null : 'response_mode',
        request.prompt === 'none' ? null : 'prompt',
        request.client_id === this.clientId ? null : 'client_id',
        request.redirect_uri ? null : 'redirect_uri',
        request.login_hint ? null : 'login_hint',
        request.state ? null : 'state',
        request.nonce ? null : 'nonce',
      ].filter(Boolean);
      if (problems.length > 0) return json(400, { error: 'invalid_request', fields: problems });
      if (!this.plan) return json(400, { error: 'login_required' });
      const idToken = await this.idToken(request, this.plan);
      res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end(
          `<form method="post" action="${request.redirect_uri}"><input type="hidden" name="id_token" value="${idToken}">` +
            `<input type="hidden" name="state" value="${request.state}"></form><script>document.forms[0].submit()</script>`,
        );
      return;
    }

    if (req.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(body);
      if (form.get('grant_type') !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' });
      if (form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') return json(400, { error: 'invalid_client' });
      try {
        const { payload, protectedHeader } = await jwtVerify(form.get('client_assertion') ?? '', createRemoteJWKSet(new URL(this.toolJwksUrl)), {
          issuer: this.clientId,
          subject: this.clientId,
          audience: this.tokenUrl,
        });
        if (!payload.jti || !payload.exp || !payload.iat) return json(400, { error: 'invalid_client', reason: 'jti, iat and exp are required' });
        this.tokenRequests.push({ assertion: payload, header: protectedHeader as Record<string, unknown>, scope: form.get('scope') ?? '' });
      } catch (error) {
        return json(401, { error: 'invalid_client', reason: String(error) });
      }
      const token = `at-${this.issuedTokens.size + 1}-${Math.random().toString(36).slice(2)}`;
      this.issuedTokens.add(token);
      this.tokenScopes.set(token, form.get('scope') ?? '');
      return json(200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: form.get('scope') });
    }

    const scores = /^\/lineitems\/([^/]+)\/scores$/.exec(url.pathname);
    if (req.method === 'POST' && scores) {
      const authorization = req.headers.authorization;
      if (!authorization?.startsWith('Bearer ') || !this.issuedTokens.has(authorization.slice(7))) return json(401, { error: 'invalid_token' });
      const failure = this.failScores.shift();
      if (failure !== undefined) return json(failure, { error: 'the gradebook is busy' });
      this.scores.push({ path: url.pathname, contentType: req.headers['content-type'], authorization, body: JSON.parse(body) as Record<string, unknown> });
      res.writeHead(204).end();
      return;
    }

    // NRPS 2.0 §2: a context's membership container, paged with `Link: <…>; rel="next"` (§2.4.2).
    const memberships = /^\/api\/contexts\/([^/]+)\/memberships$/.exec(url.pathname);
    if (req.method === 'GET' && memberships) {
      this.membershipRequests.push({ url: url.toString(), accept: req.headers.accept, authorization: req.headers.authorization });
      const authorization = req.headers.authorization ?? '';
      const token = authorization.startsWith('Bearer ') ? authorization.slice(7) : '';
      if (!this.issuedTokens.has(token)) return json(401, { error: 'invalid_token' });
      if (!(this.tokenScopes.get(token) ?? '').split(' ').includes(LTI.nrpsScope)) return json(403, { error: 'insufficient_scope' });
      if (!(req.headers.accept ?? '').includes(LTI.nrpsMediaType)) return json(406, { error: 'not_acceptable' });
      const failure = this.failMemberships.shift();
      if (failure !== undefined) return json(failure, { error: 'the roster service is unavailable' });
      const context = this.contexts.get(decodeURIComponent(memberships[1]!));
      if (!context) return json(404, { error: 'not_found' });
      const role = url.searchParams.get('role');
      const members = role ? context.members.filter((member) => member.roles.some((value) => value === role || value.endsWith(`#${role}`))) : context.members;
      const asked = Number(url.searchParams.get('limit') ?? this.nrpsPageSize);
      const limit = Math.max(1, Math.min(Number.isFinite(asked) ? asked : this.nrpsPageSize, this.nrpsPageSize));
      const page = Math.max(0, Number(url.searchParams.get('page') ?? 0));
      const slice = members.slice(page * limit, (page + 1) * limit);
      const headers: Record<string, string> = { 'Content-Type': LTI.nrpsMediaType };
      if ((page + 1) * limit < members.length) {
        const next = new URL(url);
        next.searchParams.set('page', String(page + 1));
        next.searchParams.set('limit', String(limit));
        headers.Link = `<${next.toString()}>; rel="next"`;
      }
      res.writeHead(200, headers).end(
        JSON.stringify({
          id: url.toString(),
          context: { id: context.id, label: context.label ?? context.id, title: context.title },
          members: slice,
        }),
      );
      return;
    }

    // LTI Dynamic Registration 1.0 §3.4: the platform's OpenID configuration with its LTI section.
    if (req.method === 'GET' && url.pathname === '/lms/.well-known/openid-configuration') {
      return json(200, {
        issuer: this.issuer,
        authorization_endpoint: this.authUrl,
        token_endpoint: this.tokenUrl,
        token_endpoint_auth_methods_supported: ['private_key_jwt'],
        token_endpoint_auth_signing_alg_values_supported: ['RS256'],
        jwks_uri: this.jwksUrl,
        registration_endpoint: `${this.origin}/register`,
        scopes_supported: ['openid', 'https://purl.imsglobal.org/spec/lti-ags/scope/score'],
        response_types_supported: ['id_token'],
        subject_types_supported: ['public', 'pairwise'],
        id_token_signing_alg_values_supported: ['RS256'],
        claims_supported: ['sub', 'iss', 'name', 'given_name', 'family_name', 'email'],
        'https://purl.imsglobal.org/spec/lti-platform-configuration': {
          product_family_code: 'test-lms',
          version: '1.0',
          messages_supported: [{ type: 'LtiResourceLinkRequest' }, { type: 'LtiDeepLinkingRequest' }],
        },
        ...this.configurationOverrides,
      });
    }

    // §3.5/3.6: the tool's registration, answered with a client id and the deployment it made.
    if (req.method === 'POST' && url.pathname === '/register') {
      const authorization = req.headers.authorization;
      this.registrations.push({ authorization, contentType: req.headers['content-type'], body: JSON.parse(body) as Record<string, unknown> });
      if (authorization !== `Bearer ${this.registrationToken}`) return json(401, { error: 'invalid_token' });
      const registration = JSON.parse(body) as Record<string, unknown>;
      this.clientId = `registered-client-${this.registrations.length}`;
      return json(200, {
        ...registration,
        client_id: this.clientId,
        'https://purl.imsglobal.org/spec/lti-tool-configuration': {
          ...(registration['https://purl.imsglobal.org/spec/lti-tool-configuration'] as object),
          deployment_id: this.deploymentId,
        },
      });
    }

    if (req.method === 'POST' && url.pathname === '/deep-link-return') {
      this.deepLinkReturns.push(new URLSearchParams(body).get('JWT') ?? '');
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>Added.</p>');
      return;
    }
    json(404, { error: 'not_found' });
  }
}
