import { Hono, type Context } from "hono";
import { AppError, invalid } from "../../errors";
import { archiveStream, exportMind } from "../../minds/export";
import { importMind, type ImportJob } from "../../minds/import";
import { getImportJob } from "../../minds/import-jobs";
import { deleteMind } from "../../minds/erase";
import { CsrfField } from "../layout";
import { formText, page } from "../render";
import { switchUiMind } from "../session";
import type { UiEnv } from "../ui-env";

// Export, import and erasing of the current mind: the same domain functions as /minds/:id/…

export const dataPages = new Hono<UiEnv>();

function DataPage({ v }: { v: UiEnv["Variables"] }) {
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
        <p>{t.importHelp}</p>
        <form method="post" action="/ui/import" enctype="multipart/form-data">
          <CsrfField token={csrf} />
          <input type="file" name="archive" accept=".jsonl,application/x-ndjson,application/json" required />
          <div class="actions"><button type="submit">{t.importButton}</button></div>
        </form>
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

dataPages.get("/data", (c) => page(c, c.var.t.data, <DataPage v={c.var} />));

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
  const { t, deps, session, mindContext: { mind } } = c.var;
  const file = (await c.req.parseBody())["archive"];
  try {
    if (!(file instanceof File)) throw invalid("choose an export file (.jsonl)");
    const job = await importMind({ ...deps, importObjects: c.env.IMPORTS }, session.accountId, mind.id, [new Uint8Array(await file.arrayBuffer())]);
    // To the job's own page: reloading it shows the progress instead of posting the archive again.
    return c.redirect(`/ui/import/${job.id}`, 303);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return page(c, t.data, <DataPage v={c.var} />, { error: err.message, status: err.status });
  }
});

/** An import written in the background, as it stands now. */
dataPages.get("/import/:jobId", async (c) => {
  const { deps, session, mindContext: { mind } } = c.var;
  return importPage(c, await getImportJob(deps, session.accountId, mind.id, c.req.param("jobId")));
});

function importPage(c: Context<UiEnv>, job: ImportJob) {
  const { t } = c.var;
  const summary = Object.entries(job.counts).map(([table, n]) => `${table}: ${n}`).join(", ");
  if (job.state === "done") return page(c, t.data, <DataPage v={c.var} />, { notice: `${t.imported}: ${summary}` });
  if (job.state === "failed") return page(c, t.data, <DataPage v={c.var} />, { error: `${t.importFailed}: ${job.error?.message ?? ""}`, status: 200 });
  return page(
    c,
    t.data,
    <>
      <section class="card" id="import-job">
        <p>{t.importProgress}: {job.rows_written} / {job.rows_total}</p>
        <p><a class="button secondary" href={`/ui/import/${job.id}`}>{t.refresh}</a></p>
      </section>
      <DataPage v={c.var} />
    </>,
    { notice: t.importRunning },
  );
}

dataPages.post("/erase", async (c) => {
  const { t, deps, session, mindContext: { mind } } = c.var;
  if ((await formText(c, "confirm")).trim() !== mind.name) {
    return page(c, t.data, <DataPage v={c.var} />, { error: t.eraseMismatch, status: 400 });
  }
  const deleted = await deleteMind({ ...deps, sessionObjects: c.env.SESSIONS }, session.accountId, mind.id);
  await switchUiMind(c, session, null);
  return page(
    c,
    t.eraseTitle,
    <section class="card" id="receipt">
      <p>{t.receipt}</p>
      <table>
        <tr><th>{t.table}</th><th>{t.rows}</th></tr>
        {Object.entries(deleted).map(([table, n]) => <tr><td>{table}</td><td>{n}</td></tr>)}
      </table>
      <p><a class="button secondary" href="/ui/minds">{t.minds}</a></p>
    </section>,
  );
});
