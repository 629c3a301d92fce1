import type * as Jose from 'jose';

/**
 * jose, loaded on the first LTI request instead of at start: most appliances never speak LTI, and
 * the library costs a few MB of resident memory that an idle appliance should not carry
 * (docs/decisions/idle-memory.md). Node keeps the module once loaded, so later calls are cheap.
 */
export const loadJose = (): Promise<typeof Jose> => import('jose');
