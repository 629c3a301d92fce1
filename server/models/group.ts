import { DataTypes, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Model, type Sequelize } from 'sequelize';

export interface GroupRow extends Model<InferAttributes<GroupRow>, InferCreationAttributes<GroupRow>> {
  id: string;
  institution_id: string;
  name: string;
  description: string;
  /** The owning teacher (a faculty person id). */
  faculty_id: string;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface GroupMemberRow extends Model<InferAttributes<GroupMemberRow>, InferCreationAttributes<GroupMemberRow>> {
  institution_id: string;
  group_id: string;
  student_id: string;
  added_at: Date;
  /** The student's own `created_at`, copied at joining (it never changes): the order of `?group_id=` lists. */
  student_created_at: Date;
}

export function defineGroup(sequelize: Sequelize) {
  return sequelize.define<GroupRow>(
    'Group',
    {
      id: { type: DataTypes.STRING(40), primaryKey: true },
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      name: { type: DataTypes.STRING(200), allowNull: false },
      description: { type: DataTypes.STRING(2000), allowNull: false, defaultValue: '' },
      faculty_id: { type: DataTypes.STRING(40), allowNull: false },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'groups' },
  );
}

export function defineGroupMember(sequelize: Sequelize) {
  return sequelize.define<GroupMemberRow>(
    'GroupMember',
    {
      institution_id: { type: DataTypes.STRING(40), allowNull: false },
      group_id: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
      student_id: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
      added_at: { type: DataTypes.DATE, allowNull: false },
      student_created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'group_members', timestamps: false },
  );
}
