import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

export type Html = HtmlEscapedString;

/**
 * The one way this page writes HTML: hono's `html` tag, which escapes every interpolated value
 * (text and attributes alike) unless it is already an Html fragment. Nothing here is async.
 */
export function h(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return html(strings, ...values) as Html;
}

export { raw };

export interface Layout {
  title: string;
  body: Html;
  /** Scripts of our own, served from /static. */
  scripts?: string[];
}

export function page(layout: Layout): string {
  return h`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${layout.title} · BareAgent</title><link rel="stylesheet" href="/static/app.css"></head>
<body><header><a href="/" class="home">BareAgent · approvals</a></header><main>${layout.body}</main>
${(layout.scripts ?? []).map((src) => h`<script src="/static/${src}" defer></script>`)}</body></html>`.toString();
}

export function age(fromIso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(fromIso)) / 1000));
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} d`;
}
