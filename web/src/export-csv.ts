import { criteriaToQuery } from 'restlayer/client';
import { client } from './api.js';
import { h } from './dom.js';

/**
 * The Export button of a list screen (contract part 15): downloads what the list's applied filters and sort show,
 * every matching row (not the page), as the server's CSV. `criteria` gives the list's criteria as they are now; paging
 * is dropped, the server exports every match up to RestAPI:MaxExportRows. The file comes through fetch (the session
 * cookie goes with it, and Accept asks for CSV, which a link cannot say) and is handed to the browser as a download.
 */
export function exportButton(service: string, criteria: () => object, status: HTMLElement): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'secondary export', 'data-export': service }, 'Export CSV');
  button.addEventListener('click', async () => {
    const { skip: _skip, take: _take, getTotalCount: _count, ...filters } = criteria() as Record<string, unknown>;
    button.disabled = true;
    status.textContent = 'Preparing the export…';
    try {
      const url = client.http.url({ path: `/${service}`, query: criteriaToQuery(filters) });
      const res = await fetch(url, { headers: { Accept: 'text/csv' }, credentials: 'same-origin' });
      if (!res.ok) {
        status.textContent = res.status === 401 ? 'Your session has expired. Please log in again.' : `The export failed (${res.status}).`;
        return;
      }
      const blob = await res.blob();
      const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? `${service}.csv`;
      const link = h('a', { href: URL.createObjectURL(blob), download: name, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      status.textContent = `Exported ${name} (${res.headers.get('X-Total-Count') ?? 'all'} matching rows).`;
    } catch (err) {
      status.textContent = `The export failed: ${(err as Error).message}`;
    } finally {
      button.disabled = false;
    }
  });
  return button;
}
