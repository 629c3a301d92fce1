/**
 * The imports the portal offers (students, faculty members, members of a group), the row and
 * kind types they share, and the planning of a file's rows: one place to import them from.
 */
export {
  CHUNK,
  emailCheckKey,
  MODE_LABELS,
  type ImportKind,
  type ImportMode,
  type PlannedRow,
  type PlanState,
  type RowAction,
  type RowOutcome,
} from './importKind';
export { memberImport } from './members';
export { facultyImport, inWords, studentImport } from './people';
export {
  countPlan,
  emailChecks,
  hasNameParts,
  mappingProblem,
  nextChunk,
  outcomesInWords,
  planInWords,
  planRows,
  sendingOrder,
  type PlanCounts,
  type PlanSettings,
} from './plan';
