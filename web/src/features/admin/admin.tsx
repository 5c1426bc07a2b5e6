import { Link } from '../../lib/router';
import AccountDetailPage from './account-detail';
import AccountsPage from './accounts';
import AlertsPage from './alerts';
import AuditPage from './audit';
import CatalogPage from './catalog';
import PoliciesPage from './policies';
import QueuePage from './queue';
import TaskLifePage from './task-life';
import TaskLogPage from './task-log';
import UpstreamsPage from './upstreams';
import UsagePage from './usage';
import './admin.css';

const SECTIONS = [
  { path: '/admin', label: 'Accounts' },
  { path: '/admin/usage', label: 'Usage and spend' },
  { path: '/admin/policies', label: 'Policies and budgets' },
  { path: '/admin/upstreams', label: 'Upstreams' },
  { path: '/admin/queue', label: 'Queue' },
  { path: '/admin/tasks', label: 'Tasks' },
  { path: '/admin/audit', label: 'Audit' },
  { path: '/admin/alerts', label: 'Alerts' },
  { path: '/admin/catalog', label: 'Catalog' },
];

const ACCOUNT_PATH = /^\/admin\/accounts\/([^/]+)$/;
const TASK_PATH = /^\/admin\/tasks\/([^/]+)$/;

/** Which section a path of the admin area belongs to (an account's page is under Accounts). */
function sectionOf(path: string): string {
  if (path === '/admin' || path === '/admin/' || path.startsWith('/admin/accounts')) return '/admin';
  if (TASK_PATH.test(path)) return '/admin/tasks';
  return SECTIONS.find((section) => section.path === path)?.path ?? '';
}

/** The page of the admin area at `path`; undefined when there is none. */
function sectionPage(path: string) {
  const account = ACCOUNT_PATH.exec(path);
  if (account?.[1]) return <AccountDetailPage id={decodeURIComponent(account[1])} />;
  const task = TASK_PATH.exec(path);
  if (task?.[1]) return <TaskLifePage id={decodeURIComponent(task[1])} />;
  switch (sectionOf(path)) {
    case '/admin':
      return <AccountsPage />;
    case '/admin/usage':
      return <UsagePage />;
    case '/admin/policies':
      return <PoliciesPage />;
    case '/admin/upstreams':
      return <UpstreamsPage />;
    case '/admin/queue':
      return <QueuePage />;
    case '/admin/tasks':
      return <TaskLogPage />;
    case '/admin/audit':
      return <AuditPage />;
    case '/admin/alerts':
      return <AlertsPage />;
    case '/admin/catalog':
      return <CatalogPage />;
    default:
      return undefined;
  }
}

/**
 * The operator console: accounts, usage and spend, policies and budgets, upstreams, the task log and
 * the audit log. Shown in the navigation to operators only; everything it shows comes from
 * /api/admin/v1, which refuses anyone else (403), whatever this page does.
 */
export default function AdminArea({ path }: { path: string }) {
  const current = sectionOf(path);
  const page = sectionPage(path);
  return (
    <div className="page">
      <h1 className="page-title">Admin</h1>
      <nav aria-label="Admin" className="admin-nav">
        <ul>
          {SECTIONS.map((section) => (
            <li key={section.path}>
              <Link href={section.path} aria-current={current === section.path ? 'page' : undefined}>
                {section.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {page ?? (
        <p>
          There is no admin page at <code>{path}</code>. <Link href="/admin">Go to Accounts</Link>.
        </p>
      )}
    </div>
  );
}
