import type { RegisterCommands } from './context.js';

/** The `accounts` commands of docs/api.md (contract §8). */
export const registerAccountsCommands: RegisterCommands = () => {};
