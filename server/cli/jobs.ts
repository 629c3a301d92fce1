import type { RegisterCommands } from './context.js';

/** The `jobs` commands of docs/api.md (contract §8). */
export const registerJobsCommands: RegisterCommands = () => {};
