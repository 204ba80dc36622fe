import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS, withServerNodeFlags } from '../../adapters/main/node-flags.js';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('the node flags the server runs with', () => {
  it('are on every documented way of starting it: npm start, the command, the compose file', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: { start: string } };
    const shebang = read('bin/wallet-vault.js').split('\n')[0]!;
    const compose = read('docs/deployment.md');
    for (const flag of SERVER_NODE_FLAGS) {
      expect(pkg.scripts.start).toContain(`node ${flag} bin/wallet-vault.js serve`);
      expect(shebang).toBe(`#!/usr/bin/env -S node ${SERVER_NODE_FLAGS.join(' ')}`);
      expect(compose).toContain(`command: ["node", "${flag}", "bin/wallet-vault.js", "serve"]`);
    }
  });

  it('are added to a worker started without them, and leave an operator’s own value alone', () => {
    expect(withServerNodeFlags(['--enable-source-maps'])).toEqual(['--enable-source-maps', ...SERVER_NODE_FLAGS]);
    expect(withServerNodeFlags(['--max-semi-space-size=64'])).toEqual(['--max-semi-space-size=64']);
    expect(withServerNodeFlags(['--max_semi_space_size=8'])).toEqual(['--max_semi_space_size=8']);
  });
});
