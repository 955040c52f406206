import type { AttachmentLimits, PermissionMode } from './input';
import { visibleText } from './visible-text';

export interface Mention {
  /** As written, without the `@` and the punctuation around it. */
  path: string;
  /** `@...`: the author asked for it, so a refusal is reported; a plain path that is not there is skipped in silence. */
  explicit: boolean;
}

/** The input of the `attachMentions` activity: the mentions of one message the guard let through. */
export interface AttachRequest {
  workspace?: string;
  mentions: Mention[];
  limits: AttachmentLimits;
  /** Also attach the local files the attached files import, each only if the run's guard (this mode and these deny rules) allows reading it outright. */
  imports?: { mode: PermissionMode; deny?: string[] };
}

/** One mentioned file (numbered, as read_file shows it) or directory (a listing), as attached. */
export interface Attachment {
  path: string;
  kind: 'file' | 'listing';
  /** Characters of `text`: what entered the context. */
  chars: number;
  text: string;
  /** Cut by the caps: the model reads on with read_file. */
  truncated?: boolean;
  /** Attached because this attached file imports it, not because the message named it. */
  importedBy?: string;
}

/** A mention that attached nothing, and why (a plain path that does not exist is not listed). */
export interface SkippedMention {
  path: string;
  reason: string;
}

export interface AttachResult {
  attachments: Attachment[];
  skipped: SkippedMention[];
}

/** `1.2 kB`: a size as the terminal and the page show it. */
export function formatChars(chars: number): string {
  if (chars < 1000) return `${chars} B`;
  if (chars < 1_000_000) return `${(chars / 1000).toFixed(1)} kB`;
  return `${(chars / 1_000_000).toFixed(1)} MB`;
}

/** `attached src/a.ts (1.2 kB), docs/ (listing, 80 B); not attached: .env (denied …)`, one line for the terminal and the page. */
export function describeAttachments(event: { files: Array<{ path: string; kind: string; chars: number; truncated?: boolean }>; skipped: Array<{ path: string; reason: string }> }): string {
  const files = event.files.map((f) => `${visibleText(f.path)} (${f.kind === 'listing' ? 'listing, ' : ''}${formatChars(f.chars)}${f.truncated ? ', cut' : ''})`);
  const skipped = event.skipped.map((s) => `${visibleText(s.path)} (${visibleText(s.reason)})`);
  return [files.length ? `attached ${files.join(', ')}` : '', skipped.length ? `not attached: ${skipped.join(', ')}` : ''].filter(Boolean).join('; ');
}
