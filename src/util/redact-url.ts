/**
 * A URL with any userinfo (`user:password@`) replaced by `***@`, for messages and logs. FORGEJO_URL may be
 * written with credentials (for a proxy in front of Forgejo); they must never reach an error message, a log
 * line or a printed command. Strings that are not URLs come back unchanged.
 */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, "$1***@");
}
