/** Where a profiled frame's code lives: an npm package, a node: module, a source file, or the VM (cpu-summary, alloc-summary). */
export function where(url: string): string {
  if (!url) return "(native/VM)";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split("/");
    return `npm:${rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith("node:")) return url;
  const src = url.search(/\/(src|bench|dist-bench)\//);
  return src >= 0 ? url.slice(src + 1).replace(/^dist-bench\//, "") : url;
}
