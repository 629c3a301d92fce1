import type { FindOptions, Model, Attributes } from 'sequelize';

// Pages of a list: what a page holds, and reading one so that a page near the end costs what a
// page near the start does.

type Find<M extends Model> = Omit<FindOptions<Attributes<M>>, 'transaction'>;

export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export interface PageRequest {
  page: number;
  limit: number;
}

/** `order` with every direction flipped, or undefined when it is not a plain list of `[column, direction]`. */
function reverseOrder(order: Find<Model>['order']): Array<[string, 'ASC' | 'DESC']> | undefined {
  if (!Array.isArray(order) || order.length === 0) return undefined;
  const reversed: Array<[string, 'ASC' | 'DESC']> = [];
  for (const item of order) {
    if (!Array.isArray(item) || item.length !== 2 || typeof item[0] !== 'string' || typeof item[1] !== 'string') return undefined;
    const direction = item[1].toUpperCase();
    if (direction !== 'ASC' && direction !== 'DESC') return undefined;
    reversed.push([item[0], direction === 'ASC' ? 'DESC' : 'ASC']);
  }
  return reversed;
}

type Order = Find<Model>['order'];

/** The page `request` asks for out of `total` rows, read by `read`; a page in the back half is read backwards. */
export async function cutPage<T>(
  total: number,
  request: PageRequest,
  order: Order,
  read: (order: Order, limit: number, offset: number) => Promise<T[]>,
): Promise<Page<T>> {
  const result = (items: T[]) => ({ items, page: request.page, limit: request.limit, total, totalPages: Math.ceil(total / request.limit) });
  const offset = (request.page - 1) * request.limit;
  if (offset >= total) return result([]);
  const end = Math.min(offset + request.limit, total);
  const reversed = offset > total / 2 ? reverseOrder(order) : undefined;
  if (!reversed) return result(await read(order, request.limit, offset));
  const items = await read(reversed, end - offset, total - end);
  return result(items.reverse());
}
