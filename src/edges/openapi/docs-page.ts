import type { OpenApiDocument } from './openapi-document.js';

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

type Operation = {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string }>;
  requestBody?: { content: Record<string, { schema?: unknown }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: unknown }> }>;
};

/** A link to a named schema, or the inline schema's type (an event stream, an image, a small object). */
function schemaLink(schema: unknown): string {
  const ref = (schema as { $ref?: string } | undefined)?.$ref;
  if (!ref)
    return `<code>${escapeHtml(String((schema as { type?: unknown } | undefined)?.type ?? 'object'))}</code>`;
  const name = escapeHtml(ref.split('/').pop() ?? '');
  return `<a href="#schema-${name}">${name}</a>`;
}

/** The /docs page: a readable rendering of the OpenAPI document, with no external assets. */
export function renderDocsPage(document: OpenApiDocument): string {
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, methods]) =>
    Object.entries(methods as Record<string, Operation>).map(([method, op]) => ({ path, method, op })),
  );
  const sections = operations
    .map(({ path, method, op }) => {
      const params = (op.parameters ?? [])
        .map(
          (p) =>
            `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}${p.required ? ', required' : ''}</td><td>${escapeHtml(p.description ?? '')}</td></tr>`,
        )
        .join('');
      const body = op.requestBody
        ? `<p><strong>Body</strong>: ${Object.entries(op.requestBody.content)
            .map(
              ([type, media]) =>
                `<code>${escapeHtml(type)}</code>${media.schema ? ` ${schemaLink(media.schema)}` : ''}`,
            )
            .join(' · ')}</p>`
        : '';
      const responses = Object.entries(op.responses)
        .map(([status, response]) => {
          const schema = response.content ? Object.values(response.content)[0]?.schema : undefined;
          const link = schema ? ` → ${schemaLink(schema)}` : '';
          return `<li><code>${status}</code> ${escapeHtml(response.description)}${link}</li>`;
        })
        .join('');
      return `<section id="${op.operationId}"><h2><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h2>
<p class="summary">${escapeHtml(op.summary)}</p>${op.description ? `<p>${escapeHtml(op.description)}</p>` : ''}
${params ? `<table><thead><tr><th>Parameter</th><th>In</th><th>Meaning</th></tr></thead><tbody>${params}</tbody></table>` : ''}
${body}<ul class="responses">${responses}</ul></section>`;
    })
    .join('\n');
  const schemas = Object.entries(document.components?.schemas ?? {})
    .map(
      ([name, schema]) =>
        `<section id="schema-${name}"><h3>${name}</h3><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre></section>`,
    )
    .join('\n');
  const nav = operations
    .map(
      ({ path, method, op }) =>
        `<li><a href="#${op.operationId}"><span class="m ${method}">${method.toUpperCase()}</span> ${escapeHtml(path)}</a></li>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(document.info.title)} — reference</title>
<style>
:root{color-scheme:light dark;--fg:#1b1d22;--muted:#5d6470;--bg:#fff;--line:#e3e6eb;--code:#f4f5f7;--accent:#4b5bd6}
@media (prefers-color-scheme:dark){:root{--fg:#e8eaef;--muted:#9aa2af;--bg:#14161a;--line:#2a2e35;--code:#1d2026;--accent:#8b96ff}}
body{margin:0;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:980px;margin:0 auto;padding:2rem 1.25rem 4rem}
h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:0 0 .4rem}h3{margin:.5rem 0}
section{border-top:1px solid var(--line);padding:1.25rem 0}
code,pre{font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace}pre{background:var(--code);padding:.75rem;border-radius:8px;overflow:auto}
.m{display:inline-block;min-width:3.2em;text-align:center;border-radius:4px;padding:0 .35em;font:600 12px/1.7 ui-monospace,monospace;color:#fff}
.get{background:#2f7d4f}.post{background:#4b5bd6}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{border-bottom:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
.summary{font-weight:600}.muted{color:var(--muted)}nav ul{list-style:none;padding:0;columns:2}a{color:var(--accent)}
</style></head><body><main>
<h1>${escapeHtml(document.info.title)}</h1>
<p class="muted">${escapeHtml(document.info.description ?? '')} Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI ${document.openapi}).</p>
<nav><ul>${nav}</ul></nav>
${sections}
<h2 style="margin-top:2rem">Schemas</h2>
${schemas}
</main></body></html>`;
}
