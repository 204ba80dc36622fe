import { afterEach } from 'vitest';
import { installFetchConformance, takeConformanceFailures } from './openapi-conformance.js';

// Every test file: each answer from the API, whichever helper fetched it, is held to the OpenAPI document.
installFetchConformance();

afterEach(() => {
  const failures = takeConformanceFailures();
  if (failures.length > 0) throw new Error(`answers that do not match the OpenAPI document:\n${failures.join('\n')}`);
});
