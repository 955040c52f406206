import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { Sessions } from './session';

export const SESSION_COOKIE = 'bareagent_ui';
export const CSRF_FIELD = '_csrf';
const SESSION_DAYS = 30;

/** No inline script or style, nothing from elsewhere, no framing: what the agent wrote can only be text. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'none'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export type Access = { kind: 'session'; sessionId: string; csrf: string } | { kind: 'bearer' };
export type UiEnv = { Variables: { access: Access } };

export interface AccessOptions {
  sessions: Sessions;
  hosts: () => Set<string>;
  publicUrl?: URL;
  log: (line: string) => void;
}

/**
 * Every request, in this order: the Host header names this server (403); the token, from the
 * login link (`?token=`, which sets the session cookie and redirects to the same page without
 * it), a bearer header or the session cookie (401); on a POST from a session, the browser's
 * Origin is this page's own and the form carries the session's CSRF token (403). A bearer
 * caller is not a browser (no cookie is sent for it by another site), so it needs neither.
 */
export function accessGuard(options: AccessOptions): MiddlewareHandler<UiEnv> {
  const { sessions } = options;
  return async (c, next) => {
    const host = (c.req.header('host') ?? '').toLowerCase();
    if (!options.hosts().has(host)) return refuse(c, options, 403, `Host "${host}" is not this page's (set BAREAGENT_UI_URL to the address approvers use)`);
    securityHeaders(c);
    const url = new URL(c.req.url);
    const loginToken = url.searchParams.get('token');
    if (loginToken !== null && c.req.method === 'GET') {
      if (!sessions.tokenMatches(loginToken)) return refuse(c, options, 401, 'wrong token in the login link');
      setCookie(c, SESSION_COOKIE, sessions.create(), {
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
        maxAge: SESSION_DAYS * 24 * 3600,
        secure: options.publicUrl?.protocol === 'https:',
      });
      url.searchParams.delete('token');
      // `//host/...` would be a redirect to another site: only a path of this one.
      const path = /^\/[/\\]/.test(url.pathname) ? '/' : url.pathname;
      return c.redirect(`${path}${url.search}`, 303);
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (bearer !== undefined) {
      if (!sessions.tokenMatches(bearer)) return refuse(c, options, 401, 'wrong bearer token');
      c.set('access', { kind: 'bearer' });
      return next();
    }
    const sessionId = sessions.verify(getCookie(c, SESSION_COOKIE));
    if (sessionId === undefined) return unauthenticated(c, options);
    c.set('access', { kind: 'session', sessionId, csrf: sessions.csrfFor(sessionId) });
    if (c.req.method === 'POST') {
      const origin = c.req.header('origin');
      const own = [`${url.protocol}//${host}`, `http://${host}`, ...(options.publicUrl ? [options.publicUrl.origin] : [])];
      if (origin === undefined || !own.includes(origin)) return refuse(c, options, 403, `an answer from ${origin ?? 'a page that sent no Origin'} is not this page's`);
      const body = await c.req.parseBody();
      if (!sessions.csrfMatches(sessionId, body[CSRF_FIELD])) return refuse(c, options, 403, 'the form has no valid CSRF token: reload the page and answer again');
    }
    return next();
  };
}

function securityHeaders(c: Context): void {
  c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  c.header('X-Content-Type-Options', 'nosniff');
  // Not no-referrer: with it Chromium sends `Origin: null` on the page's own form posts, and the Origin check needs the real one.
  c.header('Referrer-Policy', 'same-origin');
  c.header('X-Frame-Options', 'DENY');
  c.header('Cache-Control', 'no-store');
}

function refuse(c: Context, options: AccessOptions, status: 401 | 403, message: string): Response {
  options.log(`refused (${status}) ${c.req.method} ${new URL(c.req.url).pathname}: ${message}`);
  return c.text(`${status === 401 ? 'Unauthorized' : 'Forbidden'}: ${message}\n`, status);
}

/**
 * 401. A link followed from another site (a chat message with the webhook's link) arrives
 * without the SameSite=Strict cookie: the page then reloads itself once, now from this site,
 * and the cookie comes along.
 */
function unauthenticated(c: Context, options: AccessOptions): Response {
  const crossSite = c.req.method === 'GET' && c.req.header('sec-fetch-site') === 'cross-site' && c.req.header('sec-fetch-mode') === 'navigate';
  if (!crossSite) return refuse(c, options, 401, 'open the login link that bareagent ui printed, or send Authorization: Bearer <token>');
  return c.html('<!doctype html><meta http-equiv="refresh" content="0"><title>Signing in</title><p>Signing in…</p>', 401);
}
