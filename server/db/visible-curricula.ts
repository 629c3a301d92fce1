import { Op, type Attributes, type ModelStatic, type Transaction, type WhereOptions } from 'sequelize';
import type { AlphaCurriculumRow } from '../models/alpha.js';
import type { Find } from './scoped-repo.js';

type CurriculumFind = Omit<Find<AlphaCurriculumRow>, 'where'> & { where?: WhereOptions<Attributes<AlphaCurriculumRow>> };

/**
 * The only way curricula are read on an institution's behalf. Curricula are the one Alpha table
 * outside ScopedRepo: a shared curriculum has `institution_id` null and belongs to every
 * institution at once, which `institution_id = <tenant>` cannot express. So the rule is written
 * here, once: the institution's own curricula and the shared ones, never another institution's.
 * Read-only: curricula are made by the operator (the CLI), not by an institution.
 */
export class VisibleCurricula {
  constructor(
    private readonly model: ModelStatic<AlphaCurriculumRow>,
    private readonly institutionId: string,
    private readonly transaction: Transaction | null,
  ) {}

  private visible(where?: WhereOptions<Attributes<AlphaCurriculumRow>>): WhereOptions<Attributes<AlphaCurriculumRow>> {
    const own = { [Op.or]: [{ institution_id: null }, { institution_id: this.institutionId }] } as WhereOptions<Attributes<AlphaCurriculumRow>>;
    return where ? { [Op.and]: [where, own] } : own;
  }

  findAll(options: CurriculumFind = {}): Promise<AlphaCurriculumRow[]> {
    return this.model.findAll({ ...options, where: this.visible(options.where), transaction: this.transaction });
  }

  findById(id: string): Promise<AlphaCurriculumRow | null> {
    return this.model.findOne({ where: this.visible({ id }), transaction: this.transaction });
  }

  count(where?: WhereOptions<Attributes<AlphaCurriculumRow>>): Promise<number> {
    return this.model.count({ where: this.visible(where), transaction: this.transaction });
  }
}
