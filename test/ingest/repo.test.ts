import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCore, type Core } from '../../src/core.js';
import { citationOf } from '../../src/engine/snippet.js';
import { ingest } from '../../src/ingest/ingest.js';
import { tempDir, testConfig } from '../helpers.js';

let core: Core;
let dir: string;
let repo: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-C', repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
    encoding: 'utf8',
  }).trim();
const write = (rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
  fs.writeFileSync(path.join(repo, rel), text);
};
const WEB = 'https://github.com/acme/handbook/blob/{commit}/{path}';

beforeAll(async () => {
  dir = tempDir();
  repo = path.join(dir, 'handbook');
  fs.mkdirSync(repo);
  git('init', '-q');
  write(
    'docs/release guide.adoc',
    '= Release Guide\n\n== Tagging\n\nTag releases with `git tag -s vX.Y.Z`; the release manager signs them.\n',
  );
  write('README.md', '# Handbook\n\nHow the team works.\n');
  git('add', '-A');
  git('commit', '-qm', 'first');
  const config = testConfig(path.join(dir, 'data'));
  core = await openCore(config);
});
afterAll(async () => {
  await core.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const run = () =>
  ingest({ store: core.store, encoder: core.encoder, config: core.config }, [repo], { webUrl: WEB, prune: true });
const docs = async () => (await core.store.documents.listDocuments()).map((d) => `${d.title} | ${d.url}`).sort();

describe("a repository's docs", () => {
  it('reads AsciiDoc by its sections, and links each file to its hosted view at the commit that last changed it', async () => {
    const first = git('rev-parse', 'HEAD');
    expect((await run()).added).toBe(2);
    expect(await docs()).toEqual([
      `Handbook | https://github.com/acme/handbook/blob/${first}/README.md`,
      `Release Guide | https://github.com/acme/handbook/blob/${first}/docs/release%20guide.adoc`,
    ]);
    const doc = (await core.store.documents.listDocuments()).find((d) => d.title === 'Release Guide')!;
    const chunks = await core.store.documents.chunksOfDocument(doc.id);
    expect(chunks.map((c) => [c.headingPath, c.text])).toEqual([
      [['Tagging'], 'Tag releases with git tag -s vX.Y.Z; the release manager signs them.'],
    ]);
    // a citation links to its section: Asciidoctor's id for "Tagging", as GitHub renders it
    expect(citationOf(chunks[0]!).url).toBe(
      `https://github.com/acme/handbook/blob/${first}/docs/release%20guide.adoc#_tagging`,
    );
  });

  it('a later commit re-reads only what it changed; an uncommitted edit is read, without a link', async () => {
    const first = git('rev-parse', 'HEAD');
    write('docs/oncall.md', '# On call\n\nThe rotation hands over on Mondays.\n');
    fs.rmSync(path.join(repo, 'README.md'));
    git('add', '-A');
    git('commit', '-qm', 'second');
    const second = git('rev-parse', 'HEAD');
    write('docs/oncall.md', '# On call\n\nThe rotation hands over on Tuesdays.\n');
    const r = await run();
    expect([r.added, r.updated, r.unchanged, r.removed]).toEqual([1, 0, 1, 1]);
    expect(second).not.toBe(first);
    expect(await docs()).toEqual([
      'On call | null',
      `Release Guide | https://github.com/acme/handbook/blob/${first}/docs/release%20guide.adoc`,
    ]);
  });

  it('reads only what git says changed since the commit it last ingested', async () => {
    const chunkText = async () => {
      const doc = (await core.store.documents.listDocuments()).find((d) => d.title === 'Release Guide')!;
      return (await core.store.documents.chunksOfDocument(doc.id)).map((c) => c.text);
    };
    // git is told the file did not change: a re-ingest leaves it unread, as stored
    git('update-index', '--assume-unchanged', 'docs/release guide.adoc');
    write('docs/release guide.adoc', '= Release Guide\n\n== Tagging\n\nTag releases with `git tag -a vX.Y.Z` now.\n');
    let r = await run();
    expect([r.added, r.updated, r.unchanged, r.removed]).toEqual([0, 0, 2, 0]);
    expect(await chunkText()).toEqual(['Tag releases with git tag -s vX.Y.Z; the release manager signs them.']);
    // once git sees the change, it is read (uncommitted, so without a link)
    git('update-index', '--no-assume-unchanged', 'docs/release guide.adoc');
    r = await run();
    expect([r.added, r.updated, r.unchanged, r.removed]).toEqual([0, 1, 1, 0]);
    expect(await chunkText()).toEqual(['Tag releases with git tag -a vX.Y.Z now.']);
  });
});
