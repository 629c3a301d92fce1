import {
  literal,
  Op,
  type Attributes,
  type CountOptions,
  type CreationAttributes,
  type FindOptions,
  type Model,
  type ModelStatic,
  type Transaction,
  type WhereOptions,
} from 'sequelize';
import { cutPage, type Page, type PageRequest } from './paging.js';
import { plainRowReader } from './plain-rows.js';
import { isPostgres } from './postgres.js';

export type TenantOwned = Model & { institution_id: string };
export type Find<M extends Model> = Omit<FindOptions<Attributes<M>>, 'transaction'>;

/**
 * The only way institution data is read or written. Every call adds the institution's id to
 * the WHERE clause (or to the row, on create) and runs in the scope's transaction, so a query
 * that forgets the tenant cannot be written.
 */
export class ScopedRepo<M extends TenantOwned> {
  constructor(
    private readonly model: ModelStatic<M>,
    private readonly institutionId: string,
    private readonly transaction: Transaction | null,
    private readonly keyed = false,
  ) {}

  /**
   * The same table for reads whose WHERE picks rows by a key or an index of their own (`id IN
   * (…)`, a list or a subquery; a trigram index): the institution is then checked on each row
   * found instead of choosing the index. Without statistics, SQLite's planner prefers an index
   * that starts with institution_id to a list of more than a few ids; PostgreSQL's, asked for a
   * page in an order its (institution_id, …) indexes hold, walks the institution in that order and
   * filters every row. Either reads the whole institution (docs/decisions/people-search.md). The
   * column is written inside an expression that changes nothing (`+institution_id` on SQLite,
   * `institution_id || ''` on PostgreSQL, where `+` does not apply to text), which no index serves.
   */
  byKey(): ScopedRepo<M> {
    return new ScopedRepo(this.model, this.institutionId, this.transaction, true);
  }

  private scoped(where: WhereOptions<Attributes<M>> | undefined): WhereOptions<Attributes<M>> {
    const sequelize = this.model.sequelize!;
    const column = `${sequelize.getQueryInterface().quoteIdentifier(this.model.name)}.institution_id`;
    const own = (this.keyed
      ? literal(`${isPostgres(sequelize) ? `(${column} || '')` : `+${column}`} = ${sequelize.escape(this.institutionId)}`)
      : { institution_id: this.institutionId }) as unknown as WhereOptions<Attributes<M>>;
    return where ? ({ [Op.and]: [where, own] } as WhereOptions<Attributes<M>>) : own;
  }

  findAll(options: Find<M> = {}): Promise<M[]> {
    return this.model.findAll({ ...options, where: this.scoped(options.where), transaction: this.transaction });
  }

  findOne(options: Find<M> = {}): Promise<M | null> {
    return this.model.findOne({ ...options, where: this.scoped(options.where), transaction: this.transaction });
  }

  findById(id: string, options: Find<M> = {}): Promise<M | null> {
    const where = { id } as unknown as WhereOptions<Attributes<M>>;
    return this.findOne({ ...options, where: options.where ? { [Op.and]: [options.where, where] } : where });
  }

  count(options: Omit<CountOptions<Attributes<M>>, 'transaction' | 'group'> = {}): Promise<number> {
    return this.model.count({ ...options, where: this.scoped(options.where), transaction: this.transaction });
  }

  /**
   * One page in `options.order`. The count is a plain `count(*)` (rows of one table are unique;
   * only a join could repeat them). A page in the back half is read from the end in the reversed
   * order, so the last page costs what the first does (docs/decisions/list-indexes.md).
   */
  async page(options: Find<M>, request: PageRequest): Promise<Page<M>> {
    const total = await this.count({ where: options.where, include: options.include, distinct: options.include !== undefined });
    return cutPage(total, request, options.order, (order, limit, offset) => this.findAll({ ...options, order, limit, offset }));
  }

  /**
   * `findAll` for rows that are only presented: their attribute values, not model instances
   * (no `update`, no associations), at about half the cost (docs/decisions/lean-list-reads.md).
   */
  async findAllPlain(options: Omit<Find<M>, 'include' | 'raw'> = {}): Promise<Array<Attributes<M>>> {
    const rows = (await this.model.findAll({ ...options, raw: true, where: this.scoped(options.where), transaction: this.transaction })) as unknown as Array<
      Record<string, unknown>
    >;
    return rows.map(plainRowReader(this.model));
  }

  /** A row of this table read with `raw: true` elsewhere (a join's columns, prefix removed), as `findAllPlain` returns it. */
  plainRow(row: Record<string, unknown>): Attributes<M> {
    return plainRowReader(this.model)(row);
  }

  /** `page` with plain rows, and the total when the caller knows it without counting. */
  async pagePlain(options: Omit<Find<M>, 'include' | 'raw'>, request: PageRequest, knownTotal?: number): Promise<Page<Attributes<M>>> {
    const total = knownTotal ?? (await this.count({ where: options.where }));
    return cutPage(total, request, options.order, (order, limit, offset) => this.findAllPlain({ ...options, order, limit, offset }));
  }

  create(values: Omit<CreationAttributes<M>, 'institution_id'>): Promise<M> {
    const row = { ...values, institution_id: this.institutionId } as unknown as CreationAttributes<M>;
    return this.model.create(row, { transaction: this.transaction });
  }

  bulkCreate(values: ReadonlyArray<Omit<CreationAttributes<M>, 'institution_id'>>): Promise<M[]> {
    const rows = values.map((row) => ({ ...row, institution_id: this.institutionId }) as unknown as CreationAttributes<M>);
    return this.model.bulkCreate(rows, { transaction: this.transaction });
  }

  async update(values: Partial<Attributes<M>>, where: WhereOptions<Attributes<M>>): Promise<number> {
    // A row never changes institution: the owner column is not writable through the scope.
    const { institution_id: _owner, ...own } = values as Partial<Attributes<M>> & { institution_id?: unknown };
    const [affected] = await this.model.update(own as Partial<Attributes<M>>, { where: this.scoped(where), transaction: this.transaction });
    return affected;
  }

  destroy(where: WhereOptions<Attributes<M>>): Promise<number> {
    return this.model.destroy({ where: this.scoped(where), transaction: this.transaction });
  }
}

/**
 * Reads of a table that is not institution-scoped, made on an institution's behalf and in its
 * transaction. Nothing is written through it; see `Tenant.appliance` for why each table is here.
 */
export class ReadOnlyRepo<M extends Model> {
  constructor(
    private readonly model: ModelStatic<M>,
    private readonly transaction: Transaction | null,
  ) {}

  findAll(options: Find<M> = {}): Promise<M[]> {
    return this.model.findAll({ ...options, transaction: this.transaction });
  }

  findOne(options: Find<M> = {}): Promise<M | null> {
    return this.model.findOne({ ...options, transaction: this.transaction });
  }
}
