// Each kind's application module lives in its folder (./kinds/<name>/), listed once in ./kinds/registered-application-kinds.ts.
export { KIND_DRY_RUNS, type KindDryRun, type KindEvaluators } from './kinds/registered-application-kinds.js';
