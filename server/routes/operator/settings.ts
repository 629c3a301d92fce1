import { isSetUp } from '../../commands/accounts/setup.js';
import { AppError } from '../../errors.js';
import { defineRoute, type AnyPortalRoute } from '../../http/route.js';
import type { AppContext } from '../../context.js';
import { addressSuggestions, isLoopbackHost, linkWarning, SERVE_NETWORK_HINT } from '../../settings/addresses.js';
import { ACCEPTED_SETTING_NAMES, defaultPublicUrl, readApplianceSettings, writeApplianceSetting } from '../../settings/appliance-settings.js';
import { z } from '../../validation/zod.js';

/** The appliance's own settings in the operator's portal (the same as `cli settings get|set`). */

const resolvedSetting = z.object({
  value: z.string(),
  source: z.enum(['env', 'setting', 'default']).openapi({ description: '`env`: an environment variable sets it and wins over a stored value.' }),
});

const suggestion = z.object({ url: z.string(), label: z.string() });

/** Whether other computers reach the listener, and what to do when they do not. */
const reach = {
  serves_network: z
    .boolean()
    .openapi({ description: 'False while the appliance listens on this computer only (HOST=127.0.0.1): no LAN address is offered then.' }),
  network_hint: z.string().nullable().openapi({ description: 'While `serves_network` is false: how to let other computers reach it.' }),
};
const reachOf = (host: string) => ({ serves_network: !isLoopbackHost(host), network_hint: isLoopbackHost(host) ? SERVE_NETWORK_HINT : null });
const warningOf = (ctx: AppContext, publicUrl: string) => linkWarning(publicUrl, ctx.listening.host, { behindProxy: ctx.config.trustProxy !== false });

export const applianceSettingsSchema = z.object({
  settings: z.object({
    public_url: resolvedSetting,
    outbound_private_hosts: resolvedSetting,
    webhook_private_hosts: resolvedSetting.openapi({ deprecated: true, description: 'The old name of `outbound_private_hosts`: the same value.' }),
  }),
  /** Where the server listens now (HOST and the bound port). */
  listening: z.object({ host: z.string(), port: z.number().int() }),
  address_suggestions: z.array(suggestion),
  ...reach,
  link_warning: z.string().nullable(),
});

export const applianceStatusSchema = z.object({
  public_url: z.string(),
  /** Set while links would only work on this computer although the appliance is reachable beyond it. */
  link_warning: z.string().nullable(),
});

export const setupAddressesSchema = z.object({
  listening: z.object({ host: z.string(), port: z.number().int() }),
  /** The address links get when none is chosen. */
  default_url: z.string(),
  address_suggestions: z.array(suggestion),
  ...reach,
});

const settingParams = z.strictObject({
  name: z.enum(ACCEPTED_SETTING_NAMES).openapi({ description: '`webhook_private_hosts` is the old name of `outbound_private_hosts`, still accepted.' }),
});
const settingBody = z.strictObject({
  value: z.string().trim().min(1).max(2000).openapi({ description: 'The new value, or `default` to forget the stored one.' }),
});

export const settingsRoutes: AnyPortalRoute[] = [
  defineRoute({
    method: 'get',
    path: '/setup/addresses',
    operationId: 'getSetupAddresses',
    tag: 'Account',
    summary: "First run only: this computer's name and LAN addresses, for the wizard's address step (409 conflict once set up)",
    caller: 'anyone',
    response: setupAddressesSchema,
    errors: ['conflict'],
    handler: async ({ ctx }) => {
      // Before the first account only: afterwards the operator reads them in Settings, signed in.
      if (await isSetUp(ctx.db)) throw new AppError('conflict', 'This appliance is set up; the operator sets its address in Appliance → Settings.');
      const { host, port } = ctx.listening;
      return {
        listening: { host, port },
        default_url: defaultPublicUrl(ctx.config, port),
        address_suggestions: addressSuggestions(port, host),
        ...reachOf(host),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/operator/settings',
    operationId: 'getApplianceSettings',
    tag: 'Operator',
    summary: "The appliance's settings with where each value comes from, and addresses other computers may use",
    caller: 'operator',
    response: applianceSettingsSchema,
    handler: async ({ ctx }) => {
      const { host, port } = ctx.listening;
      const settings = await readApplianceSettings(ctx.db, ctx.config, port);
      return {
        settings: { ...settings, webhook_private_hosts: settings.outbound_private_hosts },
        listening: { host, port },
        address_suggestions: addressSuggestions(port, host),
        ...reachOf(host),
        link_warning: warningOf(ctx, settings.public_url.value),
      };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/operator/settings/{name}',
    operationId: 'setApplianceSetting',
    tag: 'Operator',
    summary: 'Change a setting (as `settings set`); it applies at once. An environment variable of the same meaning still wins',
    caller: 'operator',
    params: settingParams,
    body: settingBody,
    response: resolvedSetting,
    handler: async ({ ctx, params, body }) => {
      const setting = await writeApplianceSetting(ctx.db, params.name, body.value);
      return (await readApplianceSettings(ctx.db, ctx.config, ctx.listening.port))[setting];
    },
  }),
  defineRoute({
    method: 'get',
    path: '/appliance',
    operationId: 'getApplianceStatus',
    tag: 'Account',
    summary: 'The base of links this appliance makes, and a warning while they only work on this computer',
    caller: 'signed-in',
    response: applianceStatusSchema,
    handler: async ({ ctx }) => {
      const publicUrl = await ctx.publicUrl();
      return { public_url: publicUrl, link_warning: warningOf(ctx, publicUrl) };
    },
  }),
];
