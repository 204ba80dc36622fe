import type { DestinationStream } from 'pino';

/**
 * A pino destination for the CLI: each log line becomes `wallet-vault: <level>: <msg> (key=value, ...)`
 * on stderr, so a store's warning neither looks like command output nor breaks a reader of stdout.
 */
export function plainTextLog(write: (line: string) => void = (line) => process.stderr.write(line)): DestinationStream {
  return {
    write(json: string) {
      const { level, msg, time: _time, pid: _pid, hostname: _hostname, service: _service, ...fields } = JSON.parse(json) as Record<string, unknown>;
      const label = typeof level === 'number' ? (LEVELS[level] ?? String(level)) : String(level);
      const extra = Object.entries(fields).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
      write(`wallet-vault: ${label}: ${String(msg)}${extra.length ? ` (${extra.join(', ')})` : ''}\n`);
    },
  };
}

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warning', 50: 'error', 60: 'fatal' };
