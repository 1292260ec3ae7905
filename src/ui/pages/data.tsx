import { type Context, Hono } from "hono";
import { AppError, invalid } from "../../errors";
import { archiveStream, exportMind } from "../../portability/export";
import { IMPORT_FORMATS, importFormatOf } from "../../portability/import/formats";
import { mindIsEmpty } from "../../portability/import/imports";
import { type ArchiveImport, importMind } from "../../portability/import/request";
import { eraseMind, followImport } from "../../portability/mind-operations";
import { label } from "../labels";
import { CsrfField } from "../layout";
import { formText, page } from "../render";
import { switchUiMind } from "../session";
import type { UiEnv } from "../ui-env";

// Export, import and erasing of the current mind: the same domain functions as /minds/:id/…

export const dataPages = new Hono<UiEnv>();

/** Rows per table as a person reads them: their words for each table, the empty ones left out. */
const rowsWritten = <T extends { [K in keyof T]: number }>(t: UiEnv["Variables"]["t"], counts: T) =>
  (Object.entries(counts) as [string, number][]).filter(([, n]) => n > 0).map(([table, n]) => [label(t, "table", table), n] as const);

/** The data page; `empty` says whether the mind can take an import (only an empty one can). */
function DataPage({ v, empty }: { v: UiEnv["Variables"]; empty: boolean }) {
  const { t, csrf } = v;
  return (
    <>
      <section class="card">
        <h2>{t.exportTitle}</h2>
        <p>{t.exportHelp}</p>
        <a class="button" id="export" href="/ui/export">{t.download}</a>
      </section>
      <section class="card">
        <h2>{t.importTitle}</h2>
        {empty ? (
          <>
            <p>{t.importHelp}</p>
            <form method="post" action="/ui/import" enctype="multipart/form-data">
              <CsrfField token={csrf} />
              <input type="file" name="archive" accept=".jsonl,.json,.af,application/x-ndjson,application/json" required />
              <label>
                {t.importFormat}
                <br />
                <select name="format">{IMPORT_FORMATS.map((format) => <option value={format}>{label(t, "format", format)}</option>)}</select>
              </label>
              <div class="actions"><button type="submit">{t.importButton}</button></div>
            </form>
          </>
        ) : (
          <p id="import-not-empty">{t.importNotEmpty} <a href="/ui/minds">{t.minds}</a></p>
        )}
      </section>
      <section class="card">
        <h2>{t.eraseTitle}</h2>
        <p>{t.eraseHelp} <strong>{v.mindContext.mind.name}</strong></p>
        <form method="post" action="/ui/erase">
          <CsrfField token={csrf} />
          <input name="confirm" autocomplete="off" required />
          <div class="actions"><button type="submit" class="danger">{t.eraseButton}</button></div>
        </form>
      </section>
    </>
  );
}

/** The data page as the mind stands now. */
const dataPage = async (c: Context<UiEnv>, options: Parameters<typeof page>[3] = {}) =>
  page(c, c.var.t.data, <DataPage v={c.var} empty={await mindIsEmpty(c.var.mindContext.shard, c.var.mindContext.mind.id)} />, options);

dataPages.get("/data", (c) => dataPage(c));

dataPages.get("/export", async (c) => {
  const { deps, session, mindContext: { mind } } = c.var;
  const name = `edgemind-${mind.id}-${deps.clock.now().toISOString().slice(0, 10)}.jsonl`;
  return c.body(archiveStream(exportMind(deps, session.accountId, mind.id)), 200, {
    "Content-Type": "application/x-ndjson; charset=utf-8",
    "Content-Disposition": `attachment; filename="${name}"`,
    "Cache-Control": "no-store",
  });
});

dataPages.post("/import", async (c) => {
  const { deps, session, mindContext: { mind } } = c.var;
  const form = await c.req.parseBody();
  const file = form["archive"];
  try {
    if (!(file instanceof File)) throw invalid("choose an export file (.jsonl), a mem0 export (.json) or a Letta agent file (.af)");
    const format = importFormatOf(null, typeof form["format"] === "string" ? form["format"] : null);
    // The form's file is read as a stream, not copied whole once more.
    const archiveImport = await importMind(deps, session.accountId, mind.id, file.stream(), format);
    // To the import's own page: reloading it shows the progress instead of posting the archive again.
    return c.redirect(`/ui/import/${archiveImport.id}`, 303);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return dataPage(c, { error: err.message, status: err.status });
  }
});

/** An import written in the background, as it stands now. */
dataPages.get("/import/:importId", async (c) => {
  const { deps, session, mindContext: { mind } } = c.var;
  return importPage(c, await followImport(deps, session.accountId, mind.id, c.req.param("importId")));
});

function importPage(c: Context<UiEnv>, archiveImport: ArchiveImport) {
  const { t } = c.var;
  const summary = rowsWritten(t, archiveImport.counts).map(([what, n]) => `${what}: ${n}`).join(", ");
  if (archiveImport.state === "done") return dataPage(c, { notice: `${t.imported}: ${summary}` });
  if (archiveImport.state === "failed") return dataPage(c, { error: `${t.importFailed}: ${archiveImport.error?.message ?? ""}`, status: 200 });
  return page(
    c,
    t.data,
    <>
      <section class="card" id="import-progress">
        <p>{t.importProgress}: {archiveImport.rows_written} / {archiveImport.rows_total}</p>
        <p><a class="button secondary" href={`/ui/import/${archiveImport.id}`}>{t.refresh}</a></p>
      </section>
      <DataPage v={c.var} empty={false} />
    </>,
    { notice: t.importRunning },
  );
}

dataPages.post("/erase", async (c) => {
  const { t, deps, session, mindContext: { mind } } = c.var;
  if ((await formText(c, "confirm")).trim() !== mind.name) {
    return dataPage(c, { error: t.eraseMismatch, status: 400 });
  }
  const receipt = await eraseMind(deps, session.accountId, mind.id);
  await switchUiMind(c, session, null);
  return page(
    c,
    t.eraseTitle,
    <section class="card" id="receipt">
      <p>{receipt.finished ? t.receipt : t.receiptGoingOn}</p>
      <table>
        <tr><th>{t.table}</th><th>{t.rows}</th></tr>
        {rowsWritten(t, receipt.deleted).map(([what, n]) => <tr><td>{what}</td><td>{n}</td></tr>)}
      </table>
      <p><a class="button secondary" href="/ui/minds">{t.minds}</a></p>
    </section>,
    { mindName: null },
  );
});
