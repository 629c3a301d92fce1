import type { Attributes, Model, ModelStatic } from 'sequelize';

type Parse = (value: unknown) => unknown;

const toDate: Parse = (value) => (typeof value === 'string' || typeof value === 'number' ? new Date(value) : value);
const toJson: Parse = (value) => (typeof value === 'string' ? JSON.parse(value) : value);
const toBoolean: Parse = (value) => (typeof value === 'number' ? value !== 0 : value);

const readers = new WeakMap<ModelStatic<Model>, (row: Record<string, unknown>) => unknown>();

/**
 * Turns a row read with `raw: true` into the model's attribute values: the same dates, JSON and
 * booleans a model instance holds, without building the instance. A page of 50 people costs
 * about half as much this way (docs/decisions/lean-list-reads.md). The drivers differ: SQLite
 * answers strings and numbers, PostgreSQL already-parsed values, which pass through unchanged.
 */
export function plainRowReader<M extends Model>(model: ModelStatic<M>): (row: Record<string, unknown>) => Attributes<M> {
  let reader = readers.get(model as ModelStatic<Model>);
  if (!reader) {
    const parsers: Array<[string, Parse]> = [];
    for (const [name, attribute] of Object.entries(model.getAttributes())) {
      const key = (attribute.type as { key?: string }).key;
      if (key === 'DATE') parsers.push([name, toDate]);
      else if (key === 'JSON') parsers.push([name, toJson]);
      else if (key === 'BOOLEAN') parsers.push([name, toBoolean]);
    }
    reader = (row) => {
      for (const [name, parse] of parsers) {
        if (row[name] !== null && row[name] !== undefined) row[name] = parse(row[name]);
      }
      return row;
    };
    readers.set(model as ModelStatic<Model>, reader);
  }
  return reader as (row: Record<string, unknown>) => Attributes<M>;
}
