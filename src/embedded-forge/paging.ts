/** Forgejo list options (routers/api/v1/utils.GetListOptions) and the RFC 5988 Link header (genAPILinks). */

export const DEFAULT_PAGING_NUM = 30;
export const MAX_RESPONSE_ITEMS = 50;

function formInt(q: URLSearchParams, name: string): number {
  const n = Number.parseInt(q.get(name) ?? "", 10);
  return Number.isFinite(n) ? n : 0;
}

export interface ListOptions {
  page: number;
  pageSize: number;
  offset: number;
  /** The raw ?page= as FormInt reads it (used by the Link header). */
  rawPage: number;
}

/** utils.GetListOptions + convert.ToCorrectPageSize: limit <= 0 → 30, above `maxItems` → `maxItems`. */
export function getListOptions(q: URLSearchParams, maxItems = MAX_RESPONSE_ITEMS): ListOptions {
  const rawPage = formInt(q, "page");
  let pageSize = formInt(q, "limit");
  if (pageSize <= 0) pageSize = DEFAULT_PAGING_NUM;
  else if (pageSize > maxItems) pageSize = maxItems;
  const page = rawPage <= 0 ? 1 : rawPage;
  return { page, pageSize, offset: (page - 1) * pageSize, rawPage };
}

/** Go url.Values.Encode: keys sorted, QueryEscape (space as "+"). */
function encodeGoQuery(q: URLSearchParams): string {
  const keys = [...new Set(q.keys())].sort();
  const esc = (s: string) =>
    encodeURIComponent(s)
      .replace(/%20/g, "+")
      .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return keys.flatMap((k) => q.getAll(k).map((v) => `${esc(k)}=${esc(v)}`)).join("&");
}

/** Link header like Forgejo's genAPILinks (paginater semantics); undefined when there are no links. */
export function linkHeader(baseUrl: string, pathname: string, query: URLSearchParams, total: number, pageSize: number, rawPage: number): string | undefined {
  const current = rawPage <= 0 ? 1 : rawPage;
  const totalPages = total === 0 ? 1 : Math.ceil(total / pageSize);
  const hasNext = total > current * pageSize;
  const isLast = total === 0 ? true : total > (current - 1) * pageSize && !hasNext;
  const link = (page: number, rel: string) => {
    const q = new URLSearchParams(query);
    q.set("page", String(page));
    return `<${baseUrl}${pathname}?${encodeGoQuery(q)}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (hasNext) links.push(link(current + 1, "next"));
  if (!isLast) links.push(link(totalPages, "last"));
  if (current !== 1) links.push(link(1, "first"));
  if (current > 1) links.push(link(current - 1, "prev"));
  return links.length > 0 ? links.join(",") : undefined;
}
