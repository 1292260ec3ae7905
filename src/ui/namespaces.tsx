import type { Namespace } from "../tenancy/namespaces";
import type { Dictionary } from "./i18n";
import { namespaceLabel } from "./labels";

/**
 * Links to each agent namespace of the mind (and "all", when `allHref` is given), the shown
 * one marked: a person sees at a glance that other namespaces hold something.
 */
export function NamespaceSwitch(props: {
  t: Dictionary;
  namespaces: Namespace[];
  current: string | null;
  href: (agent: string) => string;
  allHref?: string;
  count: (ns: Namespace) => string;
}) {
  const { t } = props;
  return (
    <nav class="ns card" aria-label={t.agentNs}>
      <span class="meta">{t.agentNs}:</span>
      {props.allHref !== undefined ? (
        <a href={props.allHref} aria-current={props.current === null ? "page" : undefined}>{t.allNamespaces}</a>
      ) : null}
      {props.namespaces.map((ns) => (
        <a href={props.href(ns.agent)} aria-current={props.current === ns.agent ? "page" : undefined} data-agent={ns.agent}>
          {namespaceLabel(t, ns.agent)} <span class="meta">{props.count(ns)}</span>
        </a>
      ))}
    </nav>
  );
}
