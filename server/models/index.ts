import type { Sequelize } from 'sequelize';
import { defineApiKey } from './api-key.js';
import { defineEvent } from './event.js';
import { defineInstitution } from './institution.js';
import { defineMembership } from './membership.js';
import { definePortalAccount } from './portal-account.js';

export type Models = ReturnType<typeof defineModels>;

/** Models are defined per Sequelize instance, so several appliances can share one process (tests). */
export function defineModels(sequelize: Sequelize) {
  const models = {
    Institution: defineInstitution(sequelize),
    PortalAccount: definePortalAccount(sequelize),
    Membership: defineMembership(sequelize),
    ApiKey: defineApiKey(sequelize),
    Event: defineEvent(sequelize),
  };

  models.Membership.belongsTo(models.PortalAccount, { foreignKey: 'account_id', as: 'account' });
  models.Membership.belongsTo(models.Institution, { foreignKey: 'institution_id', as: 'institution' });
  models.ApiKey.belongsTo(models.Institution, { foreignKey: 'institution_id', as: 'institution' });

  return models;
}
