/**
 * When a plain reply in a thread ragask answered is a follow-up for ragask (thread etiquette):
 * people also talk to each other there. It is one when someone who asked in that thread writes a
 * question. A mention of ragask is always addressed to it (the app_mention listener), and in a
 * DM every message is. Pure, so the rule is tested apart from Slack.
 */

/** A question by its form: a question mark at the end, or a question word or auxiliary first ("and what about …"). */
export function looksLikeQuestion(text: string): boolean {
  const t = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (/\?\s*$/.test(t)) return true;
  return /^(?:(?:and|but|also|so|then|ok|okay)[,\s]+)?(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|do|does|did|can|could|should|would|will|has|have|had)\b/i.test(
    t,
  );
}

export function isFollowUp(thread: { participants: readonly string[] } | null, user: string, text: string): boolean {
  return !!thread?.participants.includes(user) && looksLikeQuestion(text);
}
