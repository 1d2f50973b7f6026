/** Account status and reference data (spec 2.4-2.6, 4.5; COMPAT "GET /status", "Locations"). */
import { bool, document, errors, idParams, int, link, num, obj, ok, ref, resource, str, strings } from './common.js';
import type { JsonSchema, RouteSchema } from './types.js';

const CAPABILITIES = ['adblock', 'lighthouse', 'cookies', 'filtering', 'http_auth', 'throttle', 'video', 'dns', 'user_agent', 'resolution', 'cpu_throttle'];
const selfLinks = obj({ self: link() }, ['self']);
const list = (item: string): JsonSchema => obj({ data: { type: 'array', items: ref(item) } }, ['data']);

export const REFERENCE_SCHEMAS: Record<string, JsonSchema> = {
  Status: document(
    obj(
      {
        type: str(undefined, { enum: ['user'] }),
        id: str('the API key'),
        attributes: obj(
          {
            api_credits: num('credits left'),
            api_refill: int('Unix time of the next refill'),
            api_refill_amount: num('credits the account refills to each day'),
            account_type: str('plan name, e.g. Basic or Pro'),
            account_pro_analysis_options_access: bool(),
            account_pro_locations_access: bool(),
            account_whitelabel_pdf_access: bool(),
          },
          [
            'api_credits', 'api_refill', 'api_refill_amount', 'account_type', 'account_pro_analysis_options_access',
            'account_pro_locations_access', 'account_whitelabel_pdf_access',
          ],
        ),
      },
      ['type', 'id', 'attributes'],
    ),
  ),
  Location: resource(
    'location',
    obj(
      {
        name: str(),
        region: str('region group name'),
        default: bool('the default location'),
        account_has_access: bool(),
        browsers: strings('IDs of the browsers its online agents offer (none while no agent is online: tests still queue there)'),
        agents_online: int('Webgauge extension: agents of the location heard from within three heartbeats'),
      },
      ['name', 'region', 'default', 'account_has_access', 'browsers'],
    ),
    selfLinks,
  ),
  Browser: resource(
    'browser',
    obj(
      {
        name: str('display name'),
        browser: str('short name'),
        platform: str(undefined, { enum: ['desktop', 'android'] }),
        device: str('phone or tablet; empty for desktop', { enum: ['', 'phone', 'tablet'] }),
        default: bool(),
        ...Object.fromEntries(CAPABILITIES.map((c) => [c, bool(`supports ${c}`)])),
      },
      ['name', 'browser', 'platform', 'device', 'default', ...CAPABILITIES],
    ),
    selfLinks,
  ),
  SimulatedDevice: resource(
    'simulated_device',
    obj(
      {
        category: str(undefined, { enum: ['phone', 'tablet'] }),
        name: str(),
        manufacturer: str(),
        user_agent: str(),
        width: int('px, portrait'),
        height: int('px, portrait'),
        dppx: num('device pixel ratio, 1 to 5'),
      },
      ['category', 'name', 'manufacturer', 'user_agent', 'width', 'height', 'dppx'],
    ),
    selfLinks,
  ),
  LocationDocument: document(ref('Location')),
  LocationList: list('Location'),
  BrowserDocument: document(ref('Browser')),
  BrowserList: list('Browser'),
  SimulatedDeviceDocument: document(ref('SimulatedDevice')),
  SimulatedDeviceList: list('SimulatedDevice'),
};

const one = (operationId: string, summary: string, schema: string, code: 'E40403' | 'E40404' | 'E40408', what: string): RouteSchema => ({
  operationId,
  summary,
  description: `One ${what}.`,
  tags: ['Reference data'],
  params: idParams(`${what} ID`),
  validationErrorCode: 'E40000',
  paramsErrorCode: code,
  responses: { '200': ok(`The ${what}.`, ref(schema)), ...errors(code) },
});
const all = (operationId: string, summary: string, schema: string, description: string): RouteSchema => ({
  operationId,
  summary,
  description,
  tags: ['Reference data'],
  validationErrorCode: 'E40000',
  responses: { '200': ok(summary, ref(schema)), ...errors() },
});

export const REFERENCE_ROUTES: Record<string, RouteSchema> = {
  'GET /status': {
    operationId: 'getStatus',
    summary: 'Account status',
    description: 'Credits, next refill and plan features of the account of the API key.',
    tags: ['Account'],
    validationErrorCode: 'E40000',
    responses: { '200': ok('The account status.', ref('Status')), ...errors() },
  },
  'GET /locations': all('listLocations', 'Test locations', 'LocationList', 'Every location, with its region, access and browsers.'),
  'GET /locations/:id': one('getLocation', 'Get a location', 'LocationDocument', 'E40404', 'location'),
  'GET /browsers': all('listBrowsers', 'Browsers', 'BrowserList', 'The browsers available to the account, with their capabilities.'),
  'GET /browsers/:id': one('getBrowser', 'Get a browser', 'BrowserDocument', 'E40403', 'browser'),
  'GET /simulated-devices': all('listSimulatedDevices', 'Simulated devices', 'SimulatedDeviceList', 'Devices a test can emulate (simulate_device, pro plans).'),
  'GET /simulated-devices/:id': one('getSimulatedDevice', 'Get a simulated device', 'SimulatedDeviceDocument', 'E40408', 'simulated device'),
};
