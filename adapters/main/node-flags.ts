/**
 * Node flags the server runs with (`npm start`, the `wallet-vault` command's shebang, the cluster's
 * workers, the compose file in docs/deployment.md). A sign allocates a few kilobytes that live until its
 * commit is durable, a few milliseconds: with V8's default 16 MiB semi-space, scavenges come often enough
 * to promote many of them and then collect them again from the old generation. A 32 MiB semi-space
 * (at most 64 MiB more of young generation) cut the server's CPU per sign by about 12 % (docs/benchmarks.md).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/** `execArgv` with the server's flags added where the process was started without its own value. */
export function withServerNodeFlags(execArgv: readonly string[]): string[] {
  const out = [...execArgv];
  for (const flag of SERVER_NODE_FLAGS) {
    const name = flag.slice(0, flag.indexOf('='));
    const given = out.some((a) => a === name || a.startsWith(`${name}=`) || a.replaceAll('_', '-').startsWith(`${name}=`));
    if (!given) out.push(flag);
  }
  return out;
}
