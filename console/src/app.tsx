/** The console shell: session, sign-in gate, navigation, usage meters and the routed screen. */
import { useEffect, useState } from 'preact/hooks';
import { auth, type Session, setCsrfToken } from './api.ts';
import { poolViews } from './format.ts';
import { navigate, onUnauthorized, useRoute } from './hooks.ts';
import { POOL_FEATURE } from './plan.ts';
import { isPublic, type Route } from './router.ts';
import { BrandForm } from './screens/brand-form.tsx';
import { BrandPage } from './screens/brand.tsx';
import { BrandsList } from './screens/brands.tsx';
import { KeysScreen } from './screens/keys.tsx';
import { managesMembers } from './members.ts';
import { MembersScreen } from './screens/members.tsx';
import { InviteScreen, LoginScreen } from './screens/login.tsx';
import { applyThemePref, loadThemePref, THEME_PREFS, type ThemePref } from './theme.ts';
import { Button, Loading, Toaster } from './ui.tsx';
import { refreshUsage, resetUsage, useUsage } from './usage.ts';

export function App() {
  const route = useRoute();
  const [session, setSession] = useState<Session | null | undefined>(undefined);

  const signedIn = (s: Session | null) => {
    setCsrfToken(s?.csrfToken);
    resetUsage();
    setSession(s);
  };

  useEffect(() => {
    onUnauthorized(() => signedIn(null));
    auth.me().then(
      (s) => signedIn(s),
      () => signedIn(null),
    );
  }, []);

  // Signed out on a private page: to sign-in, coming back afterwards.
  useEffect(() => {
    if (session === null && !isPublic(route)) {
      sessionStorage.setItem('atelier.after-login', location.hash);
      navigate('#/login');
    }
    if (session && route.name === 'login') navigate(sessionStorage.getItem('atelier.after-login') || '#/brands');
  }, [session, route.name]);

  if (route.name === 'invite') {
    return (
      <Centered>
        <InviteScreen
          token={route.token}
          onDone={(s) => {
            signedIn(s);
            navigate('#/brands');
          }}
        />
      </Centered>
    );
  }
  if (session === undefined) {
    return (
      <Centered>
        <Loading />
      </Centered>
    );
  }
  if (session === null || route.name === 'login') {
    return (
      <Centered>
        <LoginScreen onDone={signedIn} />
      </Centered>
    );
  }
  return (
    <Shell
      session={session}
      route={route}
      onSignOut={async () => {
        await auth.logout().catch(() => {});
        sessionStorage.removeItem('atelier.after-login');
        signedIn(null);
      }}
    >
      <Screen route={route} role={session.user.role} />
    </Shell>
  );
}

function Screen({ route, role }: { route: Route; role: string }) {
  switch (route.name) {
    case 'brands':
      return <BrandsList />;
    case 'brand-new':
      return <BrandForm />;
    case 'brand':
      return <BrandPage key={route.id} id={route.id} tab={route.tab} query={route.query} />;
    case 'keys':
      return <KeysScreen />;
    case 'members':
      if (managesMembers(role)) return <MembersScreen myRole={role} />;
      return (
        <section class="page">
          <h1>Members</h1>
          <p>Only admins and owners of the organization manage its members.</p>
        </section>
      );
    default:
      return (
        <section class="page">
          <h1>Page not found</h1>
          <p>
            <a href="#/brands">Go to your brands</a>
          </p>
        </section>
      );
  }
}

function Centered({ children }: { children: preact.ComponentChildren }) {
  return (
    <main class="centered" id="main">
      <div class="brandmark" aria-hidden="true">
        Atelier
      </div>
      {children}
      <Toaster />
    </main>
  );
}

type Section = 'brands' | 'keys' | 'members';

/** A main navigation link, marked as the current page when its section is shown. */
function NavLink(props: { to: Section; current: Section; children: string }) {
  return (
    <a
      href={`#/${props.to}`}
      class="nav-link"
      aria-current={props.current === props.to ? 'page' : undefined}
      data-testid={`nav-${props.to}`}
    >
      {props.children}
    </a>
  );
}

function Shell(props: { session: Session; route: Route; onSignOut: () => void; children: preact.ComponentChildren }) {
  const { user } = props.session;
  const [menu, setMenu] = useState(false);
  const section: Section = props.route.name === 'keys' || props.route.name === 'members' ? props.route.name : 'brands';
  useEffect(() => setMenu(false), [props.route]);
  return (
    <div class="shell">
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header class="topbar">
        <span class="logo">Atelier</span>
        <span class="org" data-testid="org-name" title="Organization">
          {user.organizationName}
        </span>
        <Button
          variant="ghost"
          class="menu-toggle"
          aria-expanded={menu ? 'true' : 'false'}
          aria-controls="sidebar"
          onClick={() => setMenu(!menu)}
        >
          Menu
        </Button>
        <span class="user" data-testid="user-name">
          {user.name || user.email} <span class="role">{user.role}</span>
        </span>
        <Button variant="ghost" onClick={props.onSignOut} data-testid="sign-out">
          Sign out
        </Button>
      </header>
      <aside id="sidebar" class={`sidebar${menu ? ' open' : ''}`}>
        <nav aria-label="Main">
          <NavLink to="brands" current={section}>
            Brands
          </NavLink>
          <NavLink to="keys" current={section}>
            API keys
          </NavLink>
          {managesMembers(user.role) ? (
            <NavLink to="members" current={section}>
              Members
            </NavLink>
          ) : null}
        </nav>
        <UsageMeters routeKey={props.route} />
        <ThemePicker />
      </aside>
      <main class="content" id="main" tabIndex={-1}>
        {props.children}
      </main>
      <Toaster />
    </div>
  );
}

const THEME_LABELS: Record<ThemePref, string> = { system: 'Same as system', light: 'Light', dark: 'Dark' };

/** Light, dark, or the system's choice (the default). */
function ThemePicker() {
  const [pref, setPref] = useState(loadThemePref);
  return (
    <label class="theme-picker">
      Appearance
      <select
        value={pref}
        data-testid="theme"
        onChange={(e) => {
          const next = e.currentTarget.value as ThemePref;
          setPref(next);
          applyThemePref(next);
        }}
      >
        {THEME_PREFS.map((p) => (
          <option key={p} value={p}>
            {THEME_LABELS[p]}
          </option>
        ))}
      </select>
    </label>
  );
}

function UsageMeters({ routeKey }: { routeKey: Route }) {
  const { usage, plans, error } = useUsage();
  useEffect(() => {
    void refreshUsage();
  }, [routeKey]);
  // Work finished by others (or by a worker after this page stopped following it) counts too.
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void refreshUsage();
    }, 15_000);
    return () => clearInterval(timer);
  }, []);
  const off = new Set(
    Object.entries(POOL_FEATURE).flatMap(([pool, feature]) =>
      usage?.gated_features[feature as keyof typeof usage.gated_features] === false ? [pool] : [],
    ),
  );
  const views = poolViews(usage?.pools, off);
  const planName = plans?.data.find((p) => p.slug === usage?.plan_slug)?.name ?? usage?.plan_slug;
  return (
    <section class="usage" aria-labelledby="usage-title" data-testid="usage">
      <h2 id="usage-title">Usage this month</h2>
      {usage ? <p class="hint">Plan: {planName}</p> : null}
      {error && !usage ? <p class="hint">Usage unavailable</p> : null}
      {views.map((v) => (
        <div class="meter" key={v.id} data-testid={`usage-${v.id}`} data-level={v.level}>
          <div class="meter-label">
            <span id={`pool-${v.id}`}>{v.label}</span>
            <span class="meter-text">{v.text}</span>
          </div>
          {v.level === 'off' ? null : (
            // biome-ignore lint/a11y/useSemanticElements: <meter> cannot be styled consistently; the ARIA meter is equivalent
            <div
              class={`meter-bar meter-${v.level}`}
              role="meter"
              aria-labelledby={`pool-${v.id}`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={v.fraction === undefined ? 0 : Math.round(v.fraction * 100)}
              aria-valuetext={v.text}
            >
              <span style={{ width: `${v.fraction === undefined ? 0 : Math.max(2, v.fraction * 100)}%` }} />
            </div>
          )}
        </div>
      ))}
    </section>
  );
}
