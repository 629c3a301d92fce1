import type { Request, Response } from 'express';
import type { AppContext } from '../context.js';
import type { Tenant } from '../db/tenant.js';
import type { ErrorCode } from '../errors.js';
import type { MembershipRole } from '../models/membership.js';
import type { Scope } from '../policies/scopes.js';
import type { InstitutionAccess } from '../portal/policies.js';
import type { PortalAuth } from '../portal/session.js';
import type { KeyAuth } from './auth.js';
import type { PortalCaller } from './portal-caller.js';
import type { LearnerAuth } from './session-auth.js';
import type { UploadedFile } from './upload.js';
import type { z } from '../validation/zod.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Empty = z.ZodObject<Record<never, never>>;

/** A handler result written by the handler itself (CSV streams, files), not wrapped in the envelope. */
export class RawResponse {
  constructor(readonly write: (res: Response) => Promise<void> | void) {}
}

interface CommonInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** With `upload`: the received file, in a temporary place until the handler stores it. */
  file: UploadedFile | undefined;
  requestId: string;
  ctx: AppContext;
}

/** Who calls an institution operation: an API key, or a portal member acting with their role's scopes. */
export type InstitutionCaller = KeyAuth | PortalCaller;

/** The scopes the caller holds, whoever they are. */
export const callerScopes = (caller: InstitutionCaller): readonly string[] => (caller.kind === 'key' ? caller.key.scopes : caller.scopes);

export interface HandlerInput<P, Q, B> extends CommonInput<P, Q, B> {
  /** The caller's institution: the only door to its data. */
  tenant: Tenant;
  auth: InstitutionCaller;
}

export interface LearnerHandlerInput<P, Q, B> extends CommonInput<P, Q, B> {
  tenant: Tenant;
  learner: LearnerAuth;
}

export type PublicHandlerInput<P, Q, B> = CommonInput<P, Q, B>;

type Output<R extends z.ZodType> = Promise<z.input<R> | RawResponse>;

interface RouteBase<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType> {
  method: HttpMethod;
  /** Relative to the mount (`/v1` or `/portal/api`), OpenAPI style: `/students/{id}`. */
  path: `/${string}`;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  /** The response's media type when it is not the JSON envelope (the handler returns a RawResponse). */
  produces?: string;
  response: R;
  /** Codes this operation answers besides the ones every operation can (401, 403, 422, 429). */
  errors?: ErrorCode[];
}

/**
 * A multipart upload with one `file` field instead of a JSON body. `before` checks the route's
 * ids and the caller's right to upload there before a byte of the body is received, so nobody
 * can make the appliance store 50 MB against an id that does not exist or is not theirs.
 */
export interface UploadOptions<I> {
  maxBytes: number;
  before: (input: I) => Promise<void>;
}

type BeforeUpload<I> = Omit<I, 'body' | 'file'>;

/** An integration operation, called with an API key. */
export interface RouteDefinition<
  P extends z.ZodType = Empty,
  Q extends z.ZodType = Empty,
  B extends z.ZodType = Empty,
  R extends z.ZodType = z.ZodType,
> extends RouteBase<P, Q, B, R> {
  auth?: 'key';
  /** `any` = any valid key, or any member of the institution in the portal (`/me`, `/scopes`). */
  scope: Scope | 'any';
  /** Describes the calling key itself (`/me`): not mounted for portal sessions. */
  keyOnly?: true;
  upload?: UploadOptions<BeforeUpload<HandlerInput<z.output<P>, z.output<Q>, never>>>;
  handler: (input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Output<R>;
}

/** A learner-side operation (`/app/*`), called with a session token from the launch exchange. */
export interface LearnerRouteDefinition<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType> extends RouteBase<P, Q, B, R> {
  auth: 'session';
  upload?: UploadOptions<BeforeUpload<LearnerHandlerInput<z.output<P>, z.output<Q>, never>>>;
  handler: (input: LearnerHandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Output<R>;
}

/** An operation without credentials (the launch-token exchange, signed file links). */
export interface PublicRouteDefinition<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType> extends RouteBase<P, Q, B, R> {
  auth: 'none';
  upload?: never;
  handler: (input: PublicHandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Output<R>;
}

/** A portal operation's input: also the request and response, for the few that set the session cookie. */
export interface PortalHandlerInput<P, Q, B> extends CommonInput<P, Q, B> {
  req: Request;
  res: Response;
}

export interface SignedInHandlerInput<P, Q, B> extends PortalHandlerInput<P, Q, B> {
  auth: PortalAuth;
}

export interface MemberHandlerInput<P, Q, B> extends SignedInHandlerInput<P, Q, B> {
  /** The institution named by the `{id}` path parameter, the caller's role in it, and its scoped data. */
  access: InstitutionAccess;
}

/**
 * Who may call a portal operation: `none` (setup, sign-in), `session` (any signed-in account),
 * `operator`, or `member` (an active member of the institution in `{id}` with one of `roles`).
 */
type PortalAccess<P, Q, B, R extends z.ZodType> =
  | { access: 'none'; handler: (input: PortalHandlerInput<P, Q, B>) => Output<R> }
  | { access: 'session' | 'operator'; handler: (input: SignedInHandlerInput<P, Q, B>) => Output<R> }
  | {
      access: 'member';
      roles: readonly MembershipRole[];
      /** Also answers for the institution's sandbox id in `{id}` (membership of its live institution; docs/decisions/sandbox.md). */
      sandbox?: true;
      handler: (input: MemberHandlerInput<P, Q, B>) => Output<R>;
    };

/** An operation only the portal has (`/portal/api/*`), called with the session cookie and, on writes, the CSRF header. */
export type PortalRouteDefinition<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType> = RouteBase<P, Q, B, R> & {
  auth: 'portal';
  /** A multipart upload with one `file` field; the portal's access checks (session, CSRF, membership) run before a byte of it is read. */
  upload?: { maxBytes: number; before?: never };
  /**
   * For operator actions on one institution (approving it, its batch, its allowance): which one,
   * so the audit entry also appears in that institution's log. Member routes need none.
   */
  auditInstitution?: (call: { params: z.output<P>; result: z.input<R> }) => string | null;
} & PortalAccess<z.output<P>, z.output<Q>, z.output<B>, R>;

/* eslint-disable @typescript-eslint/no-explicit-any */
/** What `/v1` serves: key, learner and public operations. */
export type ApiRoute = RouteDefinition<any, any, any, any> | LearnerRouteDefinition<any, any, any, any> | PublicRouteDefinition<any, any, any, any>;
export type AnyRoute = ApiRoute | PortalRouteDefinition<any, any, any, any>;
export type AnyPortalRoute = PortalRouteDefinition<any, any, any, any>;
/* eslint-enable @typescript-eslint/no-explicit-any */

export function defineRoute<P extends z.ZodType = Empty, Q extends z.ZodType = Empty, B extends z.ZodType = Empty, R extends z.ZodType = z.ZodType>(
  route: RouteDefinition<P, Q, B, R>,
): RouteDefinition<P, Q, B, R> {
  return route;
}

export function defineLearnerRoute<P extends z.ZodType = Empty, Q extends z.ZodType = Empty, B extends z.ZodType = Empty, R extends z.ZodType = z.ZodType>(
  route: Omit<LearnerRouteDefinition<P, Q, B, R>, 'auth'>,
): LearnerRouteDefinition<P, Q, B, R> {
  return { ...route, auth: 'session' };
}

export function definePublicRoute<P extends z.ZodType = Empty, Q extends z.ZodType = Empty, B extends z.ZodType = Empty, R extends z.ZodType = z.ZodType>(
  route: Omit<PublicRouteDefinition<P, Q, B, R>, 'auth'>,
): PublicRouteDefinition<P, Q, B, R> {
  return { ...route, auth: 'none' };
}

export function definePortalRoute<P extends z.ZodType = Empty, Q extends z.ZodType = Empty, B extends z.ZodType = Empty, R extends z.ZodType = z.ZodType>(
  route: DistributiveOmit<PortalRouteDefinition<P, Q, B, R>, 'auth'>,
): PortalRouteDefinition<P, Q, B, R> {
  return { ...route, auth: 'portal' } as PortalRouteDefinition<P, Q, B, R>;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
