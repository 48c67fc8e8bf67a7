import path from 'node:path';
import type { DocumentRow, SourceAction } from '../store/types.js';
import { homeView, type AdminData, type HomeData } from './blocks/home.js';
import { readSourcesFile, statusCounts, syncStatuses } from '../ingest/sync.js';
import { gapsFor, savedGapReport } from '../engine/gaps.js';
import { errorMessage } from '../errors.js';
import type { ServiceDeps } from './context.js';

/** Questions a person's Home tab lists, and how far back it looks for the channels they asked in. */
const RECENT_QUESTIONS = 5;
const MEMBERSHIP_QUESTIONS = 200;
/** Unhelpful answers an admin sees, from the latest feedback. */
const NOT_HELPFUL = 5;
const FEEDBACK_SCAN = 100;

/**
 * The App Home tab: built per person from what that person may see (their DM's sources, the
 * channels they are known to be in, their own questions) and, for admins (RAGASK_ADMINS), the
 * store and the latest unhelpful answers with buttons to act on their sources. Published on
 * `app_home_opened` and after an admin acts from it; a failure to publish is logged, never thrown.
 */
export class HomeTab {
  constructor(private readonly deps: ServiceDeps) {}

  isAdmin(user: string): boolean {
    return this.deps.config.slack.admins.includes(user);
  }

  async publish(user: string): Promise<void> {
    try {
      const view = homeView(await this.gather(user));
      await this.deps.api.publishHome(user, view);
    } catch (e) {
      this.deps.log.warn({ err: e, user }, 'slack: could not publish the Home tab');
    }
  }

  /** An admin's Hide or Demote from the Home tab, logged with who acted; the tab is published again. */
  async flagSource(user: string, action: SourceAction, source: string): Promise<void> {
    if (!this.isAdmin(user)) {
      this.deps.log.warn({ user, action }, 'slack: a Home tab source action from someone not in RAGASK_ADMINS');
      return;
    }
    await this.deps.core.store.access.flagSource({ source, action, by: user, at: Date.now() });
    this.deps.log.info({ user, action, source }, 'slack: source flagged from the Home tab');
    await this.publish(user);
  }

  private async gather(user: string): Promise<HomeData> {
    const { access } = this.deps.core;
    const docs = await access.documents();
    const dm = await access.resolve({ kind: 'slack', channel: 'DM', user, isDM: true });
    const visible = docs.filter((d) => dm.allowDoc(d.id));
    const asked = await this.deps.store.threads.recentQuestions(user, MEMBERSHIP_QUESTIONS);
    // membership as the events show it: a channel this person asked ragask in (never one they are not in)
    const theirChannels = new Set(asked.filter((q) => !q.channel.startsWith('D')).map((q) => q.channel));
    // what this person may see anywhere: their DM's sources and those of the channels they are in
    const theirs = new Set(visible.map((d) => d.id));
    const channels: HomeData['channels'] = [];
    for (const id of [...theirChannels].sort()) {
      const seen = await access.resolve({ kind: 'slack', channel: id, user, isDM: false });
      const inChannel = docs.filter((d) => seen.allowDoc(d.id));
      for (const d of inChannel) theirs.add(d.id);
      const only = inChannel.filter((d) => d.scope?.kind === 'channels').length;
      if (only) channels.push({ id, sources: only });
    }
    const questions = await Promise.all(
      asked.slice(0, RECENT_QUESTIONS).map(async (q) => ({
        ...q,
        permalink: q.channel.startsWith('D') ? null : await this.deps.api.permalink(q.channel, q.messageTs),
      })),
    );
    return {
      visible: {
        total: visible.length,
        byKind: tally(visible.map((d) => d.kind)),
        byFolder: tally(visible.map((d) => path.basename(path.dirname(d.source.split('#')[0]!)))),
      },
      channels,
      questions,
      admin: this.isAdmin(user)
        ? await this.adminData(docs, theirs, this.gapsOf(user, theirChannels, docs, theirs))
        : null,
    };
  }

  /** The store, and the latest unhelpful answers whose every cited source the admin may see themself. */
  private async adminData(
    docs: readonly DocumentRow[],
    theirs: ReadonlySet<number>,
    gaps: Promise<AdminData['gaps']>,
  ): Promise<AdminData> {
    const { store } = this.deps.core;
    const [counts, flags, feedback] = await Promise.all([
      store.documents.counts(),
      store.access.flaggedDocuments(),
      this.deps.store.feedback.listFeedback(FEEDBACK_SCAN),
    ]);
    const notHelpful = feedback.filter((f) => f.value === 'not_helpful');
    const chunks = await store.documents.getChunks([...new Set(notHelpful.flatMap((f) => f.evidence))]);
    const unhelpful = notHelpful
      .filter((f) => f.evidence.every((id) => !chunks.has(id) || theirs.has(chunks.get(id)!.docId)))
      .slice(0, NOT_HELPFUL);
    return {
      backend: this.deps.config.databaseUrl ? 'PostgreSQL + pgvector' : 'SQLite + HNSW (embedded)',
      documents: counts.documents,
      windows: counts.windows,
      lastIngest: docs.reduce<string | null>((a, d) => (a === null || d.ingestedAt > a ? d.ingestedAt : a), null),
      hidden: flags.hidden.size,
      demoted: flags.demoted.size,
      notHelpful: unhelpful.map((f) => ({
        question: f.question,
        answer: f.answer,
        reason: f.reason,
        user: f.user,
        sources: [...new Set(f.evidence.map((id) => chunks.get(id)?.doc.source).filter((s): s is string => !!s))],
      })),
      synced: await this.syncedSources(),
      gaps: await gaps,
    };
  }

  /**
   * The saved gap report (`ragask gaps --all --save`, made hourly by serve) as this admin may read
   * it: questions of channels they are known to be in and of their own DMs, documents they may see.
   */
  private async gapsOf(
    user: string,
    channels: ReadonlySet<string>,
    docs: readonly DocumentRow[],
    theirs: ReadonlySet<number>,
  ): Promise<AdminData['gaps']> {
    const saved = await savedGapReport(this.deps.core.store);
    if (!saved) return null;
    const visible = new Set(docs.filter((d) => theirs.has(d.id)).map((d) => d.source));
    const groups = gapsFor(
      saved.groups,
      (q) => (q.channel.startsWith('D') ? q.user === user : channels.has(q.channel)),
      (source) => visible.has(source),
    );
    return {
      at: saved.at,
      groups: groups.map((g) => ({ count: g.count, examples: g.examples, closest: g.closest.map((d) => d.title) })),
    };
  }

  /** Each source of RAGASK_SOURCES_FILE with its last sync (null when no file is set). */
  private async syncedSources(): Promise<AdminData['synced']> {
    const file = this.deps.config.sourcesFile;
    if (!file) return null;
    try {
      const statuses = await syncStatuses(this.deps.core.store, readSourcesFile(file));
      return statuses.map(({ source, status: s }) => ({
        source: source.path,
        line: s ? `${s.at.slice(0, 16)}Z: ${statusCounts(s)}` : 'never synced',
        error: s?.error ?? null,
      }));
    } catch (e) {
      return { error: errorMessage(e) };
    }
  }
}

/** Names with their counts, most first (then by name). */
function tally(names: string[]): [string, number][] {
  const n = new Map<string, number>();
  for (const x of names) n.set(x, (n.get(x) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}
