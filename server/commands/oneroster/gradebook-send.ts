import { Op } from 'sequelize';
import type { Config } from '../../config.js';
import type { Database } from '../../db/index.js';
import { Tenant } from '../../db/tenant.js';
import { newId } from '../../ids.js';
import type { OneRosterConnectionRow } from '../../models/oneroster.js';
import type { GradebookStep, OneRosterGradebookPostRow, OneRosterLineItemRow } from '../../models/oneroster-gradebook.js';
import { RESPONSE_BODY_KEPT, sendDuePosts, type OutboundQueue, type SendOutcome } from '../lms/outbound-posts.js';
import { OneRosterClient, VERSION_PATHS, type SisSettings } from './client.js';
import { sisSettings } from './connections.js';
import { GRADEBOOK_CATEGORY } from './gradebook.js';
import { SisError, sisRequest, type SisResponse } from './http.js';

/** The scope a SIS client needs to `PUT` line items, results and categories (OneRoster 1.2 Gradebook). */
export const GRADEBOOK_SCOPE = 'https://purl.imsglobal.org/spec/or/v1p2/scope/gradebook.createput';
/** Where the 1.2 Gradebook service lives under the base URL. */
export const GRADEBOOK_PATH = '/ims/oneroster/gradebook/v1p2';

export interface GradebookOutcome extends SendOutcome {
  step: GradebookStep;
}

/** A connection's two clients for one run: the gradebook scope for the `PUT`s, the roster scope to read a class's school. */
interface ConnectionClients {
  settings: SisSettings;
  gradebook: OneRosterClient;
  roster: OneRosterClient;
}

const isSuccess = (status: number) => status >= 200 && status < 300;
const isOutcome = (value: unknown): value is GradebookOutcome => typeof value === 'object' && value !== null && 'step' in value;
const failed = (step: GradebookStep, error: string, response?: SisResponse): GradebookOutcome => ({
  ok: false,
  step,
  status: response?.status ?? null,
  body: response ? response.body.slice(0, RESPONSE_BODY_KEPT) : null,
  error: error.slice(0, 200),
});

/** Sends one result post: the category and the line item first when the SIS does not have them yet, then the result. */
class GradebookSender {
  private readonly clients = new Map<string, ConnectionClients>();

  constructor(
    private readonly db: Database,
    private readonly config: Config,
  ) {}

  private async clientsFor(connection: OneRosterConnectionRow): Promise<ConnectionClients> {
    const known = this.clients.get(connection.id);
    if (known) return known;
    const settings = await sisSettings(this.db, this.config, new Tenant(this.db, connection.institution_id), connection);
    const made = { settings, gradebook: new OneRosterClient({ ...settings, scopes: GRADEBOOK_SCOPE }), roster: new OneRosterClient(settings) };
    this.clients.set(connection.id, made);
    return made;
  }

  /** One `PUT` to the gradebook service; a refused token is forgotten so the next attempt asks again. */
  private async put(connection: OneRosterConnectionRow, clients: ConnectionClients, path: string, body: unknown): Promise<SisResponse> {
    const token = await clients.gradebook.accessToken();
    const response = await sisRequest({
      method: 'PUT',
      url: `${clients.settings.url.replace(/\/+$/, '')}${GRADEBOOK_PATH}${path}`,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      privateHosts: clients.settings.privateHosts,
    });
    if (response.status === 401) this.clients.delete(connection.id);
    return response;
  }

  /** The school of a class, from the SIS's rostering service: a line item must name it. */
  private async schoolOf(clients: ConnectionClients, classSourcedId: string): Promise<string | GradebookOutcome> {
    const token = await clients.roster.accessToken();
    const response = await sisRequest({
      method: 'GET',
      url: `${clients.settings.url.replace(/\/+$/, '')}${VERSION_PATHS['1.2']}/classes/${encodeURIComponent(classSourcedId)}`,
      headers: { Authorization: `Bearer ${token}` },
      privateHosts: clients.settings.privateHosts,
    });
    if (response.status !== 200) return failed('class', `The SIS answered the class ${classSourcedId} with HTTP ${response.status}.`, response);
    try {
      const school = (JSON.parse(response.body) as { class?: { school?: { sourcedId?: unknown } } }).class?.school?.sourcedId;
      if (typeof school === 'string' && school) return school;
    } catch {
      /* below */
    }
    return failed('class', `The SIS's class ${classSourcedId} names no school.`, response);
  }

  /** `work`, its failure to reach the SIS (a SisError) recorded as the step it happened in. */
  private async step<T>(step: GradebookStep, work: () => Promise<T>): Promise<T | GradebookOutcome> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof SisError) return failed(step, error.message);
      throw error;
    }
  }

  /** The category, then the line item with its class's school; `null` when the SIS took both. */
  private async sendLineItem(connection: OneRosterConnectionRow, clients: ConnectionClients, lineItem: OneRosterLineItemRow): Promise<GradebookOutcome | null> {
    const now = new Date().toISOString();
    const category = await this.step('category', () =>
      this.put(connection, clients, `/categories/${encodeURIComponent(GRADEBOOK_CATEGORY.sourcedId)}`, {
        category: { sourcedId: GRADEBOOK_CATEGORY.sourcedId, status: 'active', dateLastModified: now, title: GRADEBOOK_CATEGORY.title },
      }),
    );
    if (isOutcome(category)) return category;
    if (!isSuccess(category.status)) return failed('category', `category: HTTP ${category.status}`, category);
    const school = await this.step('class', () => this.schoolOf(clients, lineItem.class_sourced_id));
    if (isOutcome(school)) return school;
    const sent = await this.step('lineItem', () =>
      this.put(connection, clients, `/lineItems/${encodeURIComponent(lineItem.sourced_id)}`, {
        lineItem: { ...lineItem.payload, dateLastModified: now, school: { sourcedId: school, type: 'org' } },
      }),
    );
    if (isOutcome(sent)) return sent;
    if (!isSuccess(sent.status)) return failed('lineItem', `lineItem: HTTP ${sent.status}`, sent);
    await new Tenant(this.db, lineItem.institution_id).onerosterLineItems.update({ delivered_at: new Date() }, { id: lineItem.id });
    return null;
  }

  async send(post: OneRosterGradebookPostRow): Promise<GradebookOutcome> {
    const { models } = this.db;
    // A newer grade of the same result was queued: only the newest is sent.
    const newer = await models.OneRosterGradebookPost.count({
      where: { connection_id: post.connection_id, result_sourced_id: post.result_sourced_id, created_at: { [Op.gt]: post.created_at } },
    });
    if (newer > 0) return { ok: false, superseded: true, step: 'result', status: null, body: null, error: 'superseded by a newer grade' };
    const connection = await models.OneRosterConnection.findByPk(post.connection_id);
    if (!connection) return failed('token', 'connection_removed');
    if (!connection.gradebook_writeback) return failed('token', 'Gradebook write-back is off for this connection.');
    const clients = await this.clientsFor(connection);
    const token = await this.step('token', () => clients.gradebook.accessToken());
    if (isOutcome(token)) {
      this.clients.delete(connection.id);
      return token;
    }
    const lineItem = await models.OneRosterLineItem.findOne({ where: { connection_id: connection.id, sourced_id: post.line_item_sourced_id } });
    if (!lineItem) return failed('lineItem', 'line_item_missing');
    if (!lineItem.delivered_at) {
      const refused = await this.sendLineItem(connection, clients, lineItem);
      if (refused) return refused;
    }
    const response = await this.step('result', () =>
      this.put(connection, clients, `/results/${encodeURIComponent(post.result_sourced_id)}`, { result: post.payload }),
    );
    if (isOutcome(response)) return response;
    const ok = isSuccess(response.status);
    return {
      ok,
      step: 'result',
      status: response.status,
      body: response.body.slice(0, RESPONSE_BODY_KEPT),
      error: ok ? null : `result: HTTP ${response.status}`,
    };
  }
}

/**
 * Sends the gradebook result posts that are due (the `oneroster-gradebook` job), through the
 * queue every outbound post shares: claimed once, every attempt recorded with the request it
 * ended on, retried on `retrySeconds` (WEBHOOK_RETRY_SCHEDULE), then `dead` until replayed.
 */
export function sendDueGradebookPosts(
  db: Database,
  config: Config,
  retrySeconds: readonly number[],
  now = new Date(),
): Promise<{ sent: number; failed: number }> {
  const sender = new GradebookSender(db, config);
  const queue: OutboundQueue<OneRosterGradebookPostRow, GradebookOutcome> = {
    model: db.models.OneRosterGradebookPost,
    rows: (tx) => tx.onerosterGradebookPosts,
    send: (post) => sender.send(post),
    recordAttempt: (tx, post, at, outcome) =>
      tx.onerosterGradebookAttempts.create({
        id: newId('oga'),
        post_id: post.id,
        at,
        step: outcome.step ?? 'result',
        response_status: outcome.status,
        response_body: outcome.body,
        error: outcome.error?.slice(0, 200) ?? null,
      }),
  };
  return sendDuePosts(queue, db, retrySeconds, now);
}
