import { getContainerRuntimeClient } from 'testcontainers';

/**
 * Whether testcontainers can reach a container runtime here. Suites that need one use the answer with
 * describe.skipIf and put "SKIPPED" and the reason in their title, so a skip is loud in the output.
 */
export async function containerRuntimeAvailable(): Promise<{ available: boolean; reason: string }> {
  try {
    await getContainerRuntimeClient();
    return { available: true, reason: '' };
  } catch (error) {
    return { available: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
