// The release notes of one version, taken from CHANGELOG.md (Keep a Changelog): the body of its
// `## [<version>]` section. Used by scripts/release.mjs; a module of its own so a test can call it.

/** The section of `version` in the changelog text, without its heading; null when it has none. */
export function changelogSection(changelog, version) {
  const lines = changelog.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`## [${version}]`));
  if (start < 0) return null;
  const end = lines.findIndex((l, i) => i > start && (l.startsWith('## ') || /^\[[^\]]+\]:/.test(l)));
  return { heading: lines[start].slice(3).trim(), body: lines.slice(start + 1, end < 0 ? undefined : end).join('\n').trim() };
}

/**
 * The notes as Markdown: the version's section, the commit it was built from, and whether the working tree
 * had changes the commit does not hold (a release should be cut from a clean checkout of its tag).
 */
export function releaseNotes({ changelog, version, commit, tag, dirty }) {
  const section = changelogSection(changelog, version);
  if (section === null) throw new Error(`CHANGELOG.md has no section "## [${version}]" for package.json's version: add it (move [Unreleased] under it) before releasing`);
  const source = [`Built from commit ${commit}${tag ? ` (tag ${tag})` : ' (no tag points at it)'}.`];
  if (dirty) source.push('The working tree had uncommitted changes: this is not a release build.');
  return `# wallet-vault ${section.heading}\n\n${source.join('\n')}\n\n${section.body}\n`;
}
