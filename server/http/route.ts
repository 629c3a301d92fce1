import type { Request, Response } from 'express';
import type { AppContext } from '../context.js';
import type { Tenant } from '../db/tenant.js';
import type { AppError, ErrorCode } from '../errors.js';
import type { MembershipRole } from '../models/membership.js';
import type { Scope } from '../policies/scopes.js';
import type { InstitutionAccess } from '../portal/policies.js';
import type { PortalAuth } from '../portal/session.js';
import type { KeyAuth } from './auth.js';
import type { PortalCaller } from './portal-caller.js';
import type { LearnerAuth } from './session-auth.js';
import type { UploadedFile } from './upload.js';
import type { z } from '../validation/zod.js';

export type HttpMethod = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete';
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
  /** The body is an HTML form (`application/x-www-form-urlencoded`), as a browser or an LMS posts one, not JSON. */
  form?: true;
  /**
   * A page answering a refusal of this operation (an AppError) instead of the envelope:
   * for pages a person opens, such as an LTI launch in an LMS frame. `wantsHtml` is whether the
   * caller prefers HTML to JSON; null leaves the envelope.
   */
  refusalPage?: (error: AppError, wantsHtml: boolean) => RawResponse | null;
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

/**
 * Who calls an operation, the one vocabulary every declaration uses:
 * - `key`: an integration with an API key holding `scope` (and, mounted for the portal, a member
 *   of the institution whose role grants that scope);
 * - `learner`: a student or teacher with a session token from the launch exchange (`/app/*`);
 * - `anyone`: no credentials (the launch-token exchange, signed file links, portal setup and sign-in);
 * - `signed-in`: any signed-in portal account; `operator`: the appliance operator;
 * - `member`: an active member of the institution in `{id}` with one of `roles`.
 */
export type CallerKind = 'key' | 'learner' | 'anyone' | 'signed-in' | 'operator' | 'member';

/** The callers only the portal serves (its session cookie and, on writes, the CSRF header). */
export const PORTAL_CALLERS: readonly CallerKind[] = ['signed-in', 'operator', 'member'];

/** A portal upload: the portal's checks (session, CSRF, membership) run before a byte of it is read. */
type PortalUpload = { maxBytes: number; before?: never };

interface PortalExtras<P extends z.ZodType, R extends z.ZodType> {
  /**
   * For operator actions on one institution (approving it, its batch, its allowance): which one,
   * so the audit entry also appears in that institution's log. Member routes need none.
   */
  auditInstitution?: (call: { params: z.output<P>; result: z.input<R> }) => string | null;
}

/** What each kind of caller adds to the declaration: its checks, its upload rule and its handler's input. */
type CallerFields<C extends CallerKind, P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType> = C extends 'key'
  ? {
      /** `any` = any valid key, or any member of the institution in the portal (`/me`, `/scopes`). */
      scope: Scope | 'any';
      /** Describes the calling key itself (`/me`): not mounted for portal sessions. */
      keyOnly?: true;
      upload?: UploadOptions<BeforeUpload<HandlerInput<z.output<P>, z.output<Q>, never>>>;
      handler: (input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Output<R>;
    }
  : C extends 'learner'
    ? {
        upload?: UploadOptions<BeforeUpload<LearnerHandlerInput<z.output<P>, z.output<Q>, never>>>;
        handler: (input: LearnerHandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Output<R>;
      }
    : C extends 'anyone'
      ? PortalExtras<P, R> & { upload?: never; handler: (input: PortalHandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Output<R> }
      : C extends 'member'
        ? PortalExtras<P, R> & {
            roles: readonly MembershipRole[];
            /** Also answers for the institution's sandbox id in `{id}` (membership of its live institution; docs/decisions/sandbox.md). */
            sandbox?: true;
            upload?: PortalUpload;
            handler: (input: MemberHandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Output<R>;
          }
        : PortalExtras<P, R> & { upload?: PortalUpload; handler: (input: SignedInHandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Output<R> };

/** One operation's declaration: where it is, what it takes and answers, who may call it, and its handler. */
export type RouteDeclaration<
  C extends CallerKind = CallerKind,
  P extends z.ZodType = Empty,
  Q extends z.ZodType = Empty,
  B extends z.ZodType = Empty,
  R extends z.ZodType = z.ZodType,
> = C extends CallerKind ? { caller: C } & RouteBase<P, Q, B, R> & CallerFields<C, P, Q, B, R> : never;

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

/* eslint-disable @typescript-eslint/no-explicit-any */
/** A declaration of any kind of caller. */
export type AnyRoute = RouteDeclaration<CallerKind, any, any, any, any>;
/** What `/v1` serves: key, learner and credential-free operations. */
export type ApiRoute = RouteDeclaration<'key' | 'learner' | 'anyone', any, any, any, any>;
/** What `/portal/api` serves of its own: portal callers and credential-free operations (setup, sign-in). */
export type AnyPortalRoute = RouteDeclaration<'anyone' | 'signed-in' | 'operator' | 'member', any, any, any, any>;
/** A credential-free operation, which any mount may serve. */
export type OpenRoute = RouteDeclaration<'anyone', any, any, any, any>;
/** An integration operation (called with an API key). */
export type KeyRoute = RouteDeclaration<'key', any, any, any, any>;
/* eslint-enable @typescript-eslint/no-explicit-any */

/** Declares an operation; the registry it is listed in (server/routes/index.ts, server/routes/portal.ts) says where it is mounted. */
export function defineRoute<
  C extends CallerKind,
  P extends z.ZodType = Empty,
  Q extends z.ZodType = Empty,
  B extends z.ZodType = Empty,
  R extends z.ZodType = z.ZodType,
>(route: RouteDeclaration<C, P, Q, B, R>): RouteDeclaration<C, P, Q, B, R> {
  return route;
}
