/**
 * The event catalog as types: one entry per event type with the fields of its `data`, from which
 * `CampusBridgeEvent`, a union discriminated by `type`, is derived. The table is a value (not only
 * a type) so tests can hold it against the server's catalog (server/events/catalog.ts) and against
 * the payloads the appliance really emits; it imports nothing from the server, so the client
 * stays usable on its own.
 */

/** How a payload field is written: its JSON type, and `?` when it may be absent. */
type FieldKind = 'string' | 'string[]' | 'number' | 'number|null' | 'true';
type FieldSpec = FieldKind | `${FieldKind}?`;

const studentRefs = { submission_id: 'string', exam_id: 'string', student_id: 'string' } as const;

/** Every event type with the fields of its `data` (docs/events.md#payloads-by-type). */
export const EVENT_DATA_FIELDS = {
  'student.created': { student_id: 'string', license_id: 'string' },
  'student.updated': { student_id: 'string', changed: 'string[]', status: 'string' },
  'student.suspended': { student_id: 'string' },
  'student.reactivated': { student_id: 'string' },
  'faculty.created': { faculty_id: 'string', license_id: 'string' },
  'faculty.updated': { faculty_id: 'string', changed: 'string[]', status: 'string' },
  'group.created': { group_id: 'string', faculty_id: 'string', student_count: 'number' },
  'group.updated': { group_id: 'string', changed: 'string[]', student_count: 'number' },
  'group.deleted': { group_id: 'string' },
  'license.extended': { license_id: 'string', user_id: 'string', expires_at: 'string' },
  'license.revoked': { license_id: 'string', user_id: 'string' },
  'license.expired': { license_id: 'string', user_id: 'string' },
  'exam.created': { exam_id: 'string', faculty_id: 'string' },
  'exam.published': { exam_id: 'string' },
  'exam.closed': { exam_id: 'string' },
  'exam.assigned': { exam_id: 'string', group_ids: 'string[]' },
  'exam.graded': { ...studentRefs, score: 'number', max_score: 'number|null', status: 'string' },
  'submission.created': studentRefs,
  'submission.resubmission_requested': studentRefs,
  'submission.voided': studentRefs,
  'guardian.invited': { guardian_id: 'string', student_id: 'string', resent: 'true?' },
  'guardian.verified': { guardian_id: 'string', student_id: 'string' },
  'coupon_batch.approved': { batch_id: 'string', total_coupons: 'number' },
  'coupon.redeemed': { redemption_id: 'string', batch_id: 'string', student_id: 'string', value_cents: 'number' },
  'merit.credited': { credit_id: 'string', student_id: 'string', amount_cents: 'number' },
  'alpha.enrollment.created': { enrollment_id: 'string', student_id: 'string', curriculum_id: 'string' },
  'alpha.points.awarded': { student_id: 'string', points: 'number', ref: 'string' },
} as const satisfies Record<string, Record<string, FieldSpec>>;

/** What each field kind is in TypeScript. */
interface FieldTypes {
  string: string;
  'string[]': string[];
  number: number;
  'number|null': number | null;
  true: true;
}

type Required<Fields> = { [K in keyof Fields as Fields[K] extends FieldKind ? K : never]: FieldTypes[Fields[K] & FieldKind] };
type Optional<Fields> = {
  [K in keyof Fields as Fields[K] extends `${FieldKind}?` ? K : never]?: Fields[K] extends `${infer Kind extends FieldKind}?` ? FieldTypes[Kind] : never;
};
type Flatten<T> = { [K in keyof T]: T[K] };

/** Every event type the appliance emits (GET /v1/events/types). */
export type EventType = keyof typeof EVENT_DATA_FIELDS;

/** The `data` of one event type. */
export type EventData<T extends EventType> = Flatten<Required<(typeof EVENT_DATA_FIELDS)[T]> & Optional<(typeof EVENT_DATA_FIELDS)[T]>>;

/** An event as GET /v1/events returns it; narrowing on `type` types `data`. */
export type CampusBridgeEvent = { [T in EventType]: { id: string; type: T; created_at: string; data: EventData<T> } }[EventType];

/** What a delivery's body adds to the event. */
export interface DeliveryFields {
  institution_id: string;
  /** `sandbox` for a sandbox key's institution; absent on deliveries made before sandboxes existed. */
  environment?: 'live' | 'sandbox';
  /** Set on an example the portal or API sent on request, not on a real event. */
  example?: true;
}

/** The test ping an endpoint's "Send test" posts; never in the event stream. */
export interface WebhookPing extends DeliveryFields {
  id: string;
  type: 'webhook.ping';
  created_at: string;
  data: { endpoint_id: string };
}

/** A webhook delivery's body: an event with its institution, or a test ping. */
export type WebhookEvent = (CampusBridgeEvent & DeliveryFields) | WebhookPing;

/** Every event type, in the catalog's order. */
export const EVENT_TYPES = Object.keys(EVENT_DATA_FIELDS) as EventType[];

/**
 * What is wrong with an event's `data` for its type (unknown type, a missing, unexpected or
 * mistyped field), or an empty list. For tests and for integrators who want to check at runtime.
 */
export function eventDataProblems(type: string, data: Record<string, unknown>): string[] {
  const fields = (EVENT_DATA_FIELDS as Record<string, Record<string, FieldSpec>>)[type];
  if (!fields) return [`unknown event type ${type}`];
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(fields)) {
    const optional = spec.endsWith('?');
    const kind = (optional ? spec.slice(0, -1) : spec) as FieldKind;
    if (!(name in data)) {
      if (!optional) problems.push(`${type}: data.${name} is missing`);
      continue;
    }
    if (!isKind(data[name], kind)) problems.push(`${type}: data.${name} is ${JSON.stringify(data[name])}, not ${kind}`);
  }
  for (const name of Object.keys(data)) if (!(name in fields)) problems.push(`${type}: data.${name} is not in the client's catalog`);
  return problems;
}

function isKind(value: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'string[]':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'number':
      return typeof value === 'number';
    case 'number|null':
      return value === null || typeof value === 'number';
    case 'true':
      return value === true;
  }
}
