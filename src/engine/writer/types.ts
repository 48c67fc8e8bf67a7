/** The optional answer writer's contract: its settings, a chat endpoint, and what it returns. */

/** An OpenAI-compatible chat endpoint (llama.cpp's server, Ollama, vLLM, a hosted API). */
export interface WriterSettings {
  /** Base URL ("http://127.0.0.1:8080/v1"). */
  url: string;
  model: string;
  /** Sent as a bearer token; never logged. */
  apiKey: string | null;
  /** The whole write, first token to last, within this. */
  timeoutMs: number;
  /** The most tokens the model may write. */
  maxTokens: number;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What ragask needs of a chat endpoint: the reply, streamed as it is written. */
export interface ChatClient {
  stream(messages: readonly ChatMessage[], opts: { maxTokens: number; signal: AbortSignal }): AsyncIterable<string>;
  /** The endpoint's models, for `ragask doctor`. */
  models(signal: AbortSignal): Promise<string[]>;
}

/** Why a written sentence was dropped. */
export type DropReason = 'no_citation' | 'bad_citation' | 'value_not_in_source' | 'not_supported';

export interface WrittenSentence {
  text: string;
  /** The evidence it cites, as numbers of the reply's evidence list (1-based). */
  citations: number[];
  kept: boolean;
  /** Why it was dropped (null when kept), with the value or token that failed, if any. */
  reason: DropReason | null;
  detail: string | null;
  /** How close its content is to the best sentence of what it cites (the encoder's cosine). */
  support: number | null;
}

/** A written answer after the check: only kept sentences are in `text`. */
export interface WrittenAnswer {
  model: string;
  ms: number;
  text: string;
  sentences: WrittenSentence[];
}

/** A write that did not happen, and why (the reply is the extractive one). */
export interface WriterFailure {
  model: string;
  ms: number;
  failed: 'timeout' | 'rate_limited' | 'server_error' | 'malformed' | 'refused' | 'nothing_kept' | 'unreachable';
  message: string;
  /** For nothing_kept: every written sentence, each with why it was dropped (the trace shows them). */
  sentences?: WrittenSentence[];
}
