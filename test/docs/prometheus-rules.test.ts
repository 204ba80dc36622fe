import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PrometheusMetrics } from '../../adapters/metrics/prometheus.metrics.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/prometheus');
const RULES = path.join(dir, 'wallet-vault.rules.yml');
const PROMTOOL = spawnSync('promtool', ['--version']).status === 0;
if (!PROMTOOL) console.warn('SKIPPED: the Prometheus rules were not checked: promtool is not installed (apt-get install prometheus; .ci/run does)');

describe('the Prometheus alerting rules shipped in docs/prometheus', () => {
  it.skipIf(!PROMTOOL)('are valid rules and pass their unit tests (promtool)', () => {
    expect(execFileSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' })).toMatch(/SUCCESS: 17 rules found/);
    expect(execFileSync('promtool', ['test', 'rules', 'wallet-vault.rules.test.yml'], { cwd: dir, encoding: 'utf8' })).toMatch(/SUCCESS/);
  });

  it('name only metrics the service exports, so a renamed metric cannot leave an alert that never fires', async () => {
    const exported = new Set(
      [...(await new PrometheusMetrics({ version: 'test', processMetrics: false }).registry.metrics()).matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!),
    );
    const used = new Set([...readFileSync(RULES, 'utf8').matchAll(/\b(wallet_vault_[a-z_]+)/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, '')));
    expect(used.size).toBeGreaterThanOrEqual(5);
    for (const name of used) expect(exported, name).toContain(name);
  });
});
