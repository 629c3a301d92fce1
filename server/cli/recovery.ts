import type { RegisterCommands } from './context.js';

/** The `recovery` commands of docs/api.md (contract §8). */
export const registerRecoveryCommands: RegisterCommands = () => {};
