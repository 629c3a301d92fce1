import { DataTypes } from 'sequelize';

/**
 * The delivery columns every durable outbound queue's rows share (commands/lms/outbound-posts.ts): AGS
 * score posts to the LMS and gradebook posts to the SIS.
 */
export const outboundPostColumns = () => ({
  status: { type: DataTypes.STRING(16), allowNull: false },
  attempt_count: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
  next_attempt_at: { type: DataTypes.DATE, allowNull: true },
  last_attempt_at: { type: DataTypes.DATE, allowNull: true },
  response_status: { type: DataTypes.INTEGER, allowNull: true },
  error: { type: DataTypes.STRING(200), allowNull: true },
});
