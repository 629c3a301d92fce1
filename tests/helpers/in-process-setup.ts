// Set-up for every file of the tiers that run the appliance inside the test process
// (integration, browser, proof; vitest.config.ts). The unit tier and every spawned process keep
// the real cost, and tests/passwords.test.ts holds it.
import { lowerPasswordCostForTests } from '../../server/commands/accounts/passwords.js';

lowerPasswordCostForTests();
