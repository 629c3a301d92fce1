import { DataTypes } from 'sequelize';
import type { Migration } from '../migrate.js';

/**
 * The LMS frame and the teacher's grading session (docs/decisions/lti-frame-and-grading-sessions.md).
 * - `lti_platforms.frame_origins`: origins besides the issuer's and the sign-in URL's that may
 *   frame the tool's pages (Canvas frames from the school's own host, not from its issuer's);
 *   null is none.
 * - `lti_login_states.storage_target`: the frame the platform offers LTI Platform Storage in
 *   (`lti_storage_target` of the login initiation), carried to the page the launch opens.
 * - `launch_tokens.grading_exam_id`, `learner_sessions.grading_exam_id`: a launch (then the session
 *   it opens) made by an instructor's LTI launch, limited to grading that exam's submissions. Only
 *   the LTI launch mints such a token; `POST /v1/sso/tokens` cannot.
 */
export const ltiFrameGrading: Migration = {
  name: '20261208020000-lti-frame-grading',
  async up({ queryInterface: qi, transaction }) {
    await qi.addColumn('lti_platforms', 'frame_origins', { type: DataTypes.JSON, allowNull: true }, { transaction });
    await qi.addColumn('lti_login_states', 'storage_target', { type: DataTypes.STRING(64), allowNull: true }, { transaction });
    await qi.addColumn('launch_tokens', 'grading_exam_id', { type: DataTypes.STRING(40), allowNull: true }, { transaction });
    await qi.addColumn('learner_sessions', 'grading_exam_id', { type: DataTypes.STRING(40), allowNull: true }, { transaction });
  },
};
