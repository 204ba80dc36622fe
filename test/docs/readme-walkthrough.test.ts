import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnServer, type ChildServer } from '../support/cli.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const README = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/** The ```sh blocks of one `## ` section of a markdown text, in order. */
function shellBlocks(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "## ${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/**
 * Splits a block into commands: comment-only lines are dropped (they show output), a command goes on
 * while a single quote is open or a line ends in `\`.
 */
function commands(block: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of block.split('\n')) {
    if (current === '' && (line.trim() === '' || line.trim().startsWith('#'))) continue;
    current += (current ? '\n' : '') + line;
    const quotes = (current.match(/'/g) ?? []).length;
    if (quotes % 2 === 0 && !line.endsWith('\\')) {
      out.push(current);
      current = '';
    }
  }
  return out;
}

/**
 * `VAULT=01a2…` after a command shows the value that command printed, which differs on every run: the
 * literal is replaced by the first value of the same kind in the previous command's real output.
 */
const PRINTED: [RegExp, string][] = [
  [/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'],
  [/^wv_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/, 'wv_[0-9a-f]{16}_[A-Za-z0-9_-]{43}'],
  [/^0x[0-9a-fA-F]{40}$/, '"address":"0x[0-9a-fA-F]{40}"'],
];

interface Step {
  readonly command: string;
  readonly code: number;
  readonly output: string;
}

/** Runs the commands in one bash, from the project directory, each one's output kept for the next. */
async function runWalkthrough(cmds: string[], env: Record<string, string>, scratch: string): Promise<Step[]> {
  const lines = ['cd "$REPO"'];
  cmds.forEach((cmd, i) => {
    const assignment = /^([A-Z_]+)=([^\s$'"]+)$/.exec(cmd);
    const kind = assignment && PRINTED.find(([literal]) => literal.test(assignment[2]!));
    if (assignment && kind) {
      // The previous step's output, with the documented value's kind: never the literal from the README.
      lines.push(`${assignment[1]}=$(grep -oE '${kind[1]}' "$SCRATCH/${i - 1}.out" | head -n 1 | sed -E 's/^"address":"//; s/"$//')`);
      lines.push(`printf '%s' "$${assignment[1]}" > "$SCRATCH/${i}.out"; echo 0 > "$SCRATCH/${i}.rc"`);
    } else {
      lines.push(`{\n${cmd}\n} > "$SCRATCH/${i}.out" 2>&1; echo $? > "$SCRATCH/${i}.rc"`);
    }
  });
  const script = path.join(scratch, 'walkthrough.sh');
  await writeFile(script, `${lines.join('\n')}\n`);
  await new Promise<void>((resolve, reject) =>
    execFile('bash', [script], { env: { ...process.env, ...env, REPO: repoRoot, SCRATCH: scratch }, timeout: 120_000 }, (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  return Promise.all(
    cmds.map(async (command, i) => ({
      command,
      code: Number((await readFile(path.join(scratch, `${i}.rc`), 'utf8')).trim()),
      output: await readFile(path.join(scratch, `${i}.out`), 'utf8'),
    })),
  );
}

// About twenty commands in sequence, CLI runs among them: minutes on a busy machine, not seconds.
describe("the README's walk-through", { timeout: 180_000 }, () => {
  let dataDir: string;
  let scratch: string;
  let server: ChildServer;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-readme-'));
    scratch = await mkdtemp(path.join(tmpdir(), 'wallet-vault-readme-steps-'));
    server = await spawnServer({ VAULT_DATA_DIR: dataDir });
  });
  afterAll(async () => {
    await server?.kill('SIGTERM');
    // The walk-through runs from the project directory, as a newcomer would: what it writes there goes.
    await rm(path.join(repoRoot, 'checkpoint.json'), { force: true });
    await rm(dataDir, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
  });

  it('runs as written against a started server, every command succeeding', async () => {
    const blocks = shellBlocks(README, 'A walk-through with curl');
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    // The README's server listens on 8080; this one on a free port.
    const cmds = blocks.flatMap(commands).map((c) => c.replaceAll('http://127.0.0.1:8080', server.url));
    expect(cmds.filter((c) => c.startsWith('curl ')).length).toBeGreaterThanOrEqual(8);
    const steps = await runWalkthrough(cmds, { VAULT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, scratch);

    for (const step of steps) {
      const what = `${step.command}\n→ ${step.output}`;
      expect(step.code, what).toBe(0);
      if (step.command.startsWith('curl ')) {
        // The one documented refusal says so in the README (`"success":false` and its status).
        const documentedRefusal = step.command.includes(`'{"name":""}'`);
        expect(step.output, what).toMatch(documentedRefusal ? /^\{"success":false,"error":"name: must not be empty","code":"INVALID_ARGUMENT"\}$/ : /"success":true|"online":true/);
      }
    }
    const values = Object.fromEntries(steps.filter((s) => /^[A-Z]+=[^$]+$/.test(s.command)).map((s) => [s.command.split('=')[0], s.output]));
    expect(values.VAULT).toMatch(PRINTED[0]![0]);
    expect(values.KEY).toMatch(PRINTED[1]![0]);
    expect(values.A).toMatch(PRINTED[2]![0]);
    const sign = steps.find((s) => s.command.includes('/sign'))!;
    expect(JSON.parse(sign.output).data.args.at(-1)).toMatchObject({ v: expect.any(Number) });
    expect(steps.at(-1)!.output).toMatch(/^audit chain intact: \d+ records/m);
  });
});

describe('the CLI commands named in README.md and docs/', { timeout: 120_000 }, () => {
  it('use only commands and options the CLI has (its help lists each)', async () => {
    const files = ['README.md', ...readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const mentions = files.flatMap((file) =>
      [...readFileSync(path.join(repoRoot, file), 'utf8').matchAll(/wallet-vault(?:\.js)? ((?:serve|vaults|api-keys|keys|audit|policies|approvals|webhooks)(?: [a-z][a-z|-]*){0,2})([^`\n]*)/g)].flatMap(
        ([line, words, rest]) => {
          // `keys quarantine list|restore|destroy`: the last word may name several commands.
          const parts = words!.split(' ');
          const last = parts.pop()!;
          const options = [...new Set(rest!.match(/--[a-z][a-z-]*/g) ?? [])];
          return last.split('|').map((s) => ({ where: `${file}: ${line}`, command: [...parts, s], options }));
        },
      ),
    );
    expect(mentions.length).toBeGreaterThanOrEqual(25);
    const distinct = [...new Set(mentions.map((m) => m.command.join(' ')))];
    const helps = new Map(await Promise.all(distinct.map(async (c) => [c, await runCli([...c.split(' '), '--help'], {})] as const)));
    const global = (await runCli(['--help'], {})).stdout;
    for (const { where, command, options } of mentions) {
      const help = helps.get(command.join(' '))!;
      expect(help.code, where).toBe(0);
      expect(help.stdout, where).toMatch(new RegExp(`^Usage: wallet-vault ${command.join(' ')} `));
      for (const option of options) expect(help.stdout + global, `${where}: ${option}`).toContain(option);
    }
  });
});
