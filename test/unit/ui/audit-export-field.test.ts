// @vitest-environment happy-dom
/**
 * Issue 21 §2 in the options page: the person sets the OTLP endpoint (the host
 * permission is asked in the click), a bad URL is refused, the export's counts show,
 * the encoding is chosen, and the organisation's endpoint and encoding are shown locked.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { h } from 'preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser, localArea, resetFakeBrowser, setManagedPolicy } from './fake-browser.ts';

vi.mock('webextension-polyfill', async () => ({
  default: (await import('./fake-browser.ts')).fakeBrowser,
}));

const { AuditExportField } = await import('../../../src/ui/options/audit-export-field.tsx');

beforeEach(() => resetFakeBrowser());
afterEach(() => cleanup());

describe('AuditExportField', () => {
  it('asks for the endpoint host in the click, then stores the endpoint', async () => {
    fakeBrowser.permissions.request.mockResolvedValue(true);
    render(h(AuditExportField, { disabled: false }));
    const input = (await screen.findByTestId('audit-export-endpoint')) as HTMLInputElement;
    fireEvent.input(input, { target: { value: 'https://otel.example.org:4318' } });
    fireEvent.click(screen.getByTestId('audit-export-save'));
    expect(fakeBrowser.permissions.request).toHaveBeenCalledWith({
      origins: ['https://otel.example.org/*'],
    });
    await waitFor(() =>
      expect(localArea.auditExport).toEqual({ endpoint: 'https://otel.example.org:4318/v1/logs' }),
    );
  });

  it('refuses a URL with credentials, and stores nothing when the host is refused', async () => {
    render(h(AuditExportField, { disabled: false }));
    const input = (await screen.findByTestId('audit-export-endpoint')) as HTMLInputElement;
    fireEvent.input(input, { target: { value: 'https://user:secret@otel.example.org' } });
    fireEvent.click(screen.getByTestId('audit-export-save'));
    expect((await screen.findByRole('alert')).textContent).toContain('http or https URL');
    expect(fakeBrowser.permissions.request).not.toHaveBeenCalled();

    fakeBrowser.permissions.request.mockResolvedValue(false);
    fireEvent.input(input, { target: { value: 'https://otel.example.org' } });
    fireEvent.click(screen.getByTestId('audit-export-save'));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toContain('did not grant'));
    expect(localArea.auditExport).toBeUndefined();
  });

  it('shows how many records wait and how many the full queue dropped', async () => {
    localArea.auditExport = { endpoint: 'https://otel.example.org/v1/logs' };
    localArea.auditExportStatus = {
      endpoint: 'https://otel.example.org/v1/logs',
      queued: 12,
      droppedTotal: 3,
    };
    render(h(AuditExportField, { disabled: false }));
    expect((await screen.findByTestId('audit-export-status')).textContent).toContain(
      'Waiting to be sent: 12 · dropped when the queue was full: 3',
    );
  });

  it('shows the organisation endpoint locked', async () => {
    setManagedPolicy({ auditExport: { endpoint: 'https://collector.corp.example:4318' } });
    render(h(AuditExportField, { disabled: false }));
    const input = (await screen.findByTestId('audit-export-endpoint')) as HTMLInputElement;
    await waitFor(() => expect(input.value).toBe('https://collector.corp.example:4318/v1/logs'));
    expect(input.disabled).toBe(true);
    expect(screen.getByTestId('locked').textContent).toBe('Set by your organisation');
    expect(screen.queryByTestId('audit-export-save')).toBeNull();
  });

  it('offers to allow the organisation endpoint host when its permission is missing', async () => {
    setManagedPolicy({ auditExport: { endpoint: 'https://collector.corp.example' } });
    localArea.auditExportStatus = {
      endpoint: 'https://collector.corp.example/v1/logs',
      queued: 4,
      droppedTotal: 0,
      permissionMissing: true,
    };
    fakeBrowser.permissions.request.mockResolvedValue(true);
    render(h(AuditExportField, { disabled: false }));
    fireEvent.click(await screen.findByTestId('audit-export-allow'));
    expect(fakeBrowser.permissions.request).toHaveBeenCalledWith({
      origins: ['https://collector.corp.example/*'],
    });
  });

  it('stores the chosen encoding beside the endpoint, and keeps it when the endpoint changes', async () => {
    localArea.auditExport = { endpoint: 'https://otel.example.org/v1/logs' };
    fakeBrowser.permissions.request.mockResolvedValue(true);
    render(h(AuditExportField, { disabled: false }));
    const select = (await screen.findByTestId('audit-export-encoding')) as HTMLSelectElement;
    expect(select.value).toBe('json');
    expect(select.disabled).toBe(false);
    expect([...select.options].map((option) => option.textContent)).toEqual([
      'OTLP/JSON (readable)',
      'Protobuf (binary, the OTLP default)',
    ]);
    fireEvent.change(select, { target: { value: 'protobuf' } });
    await waitFor(() =>
      expect(localArea.auditExport).toEqual({
        endpoint: 'https://otel.example.org/v1/logs',
        encoding: 'protobuf',
      }),
    );
    await waitFor(() => expect(select.value).toBe('protobuf'));
    const input = screen.getByTestId('audit-export-endpoint') as HTMLInputElement;
    fireEvent.input(input, { target: { value: 'https://other.example.org' } });
    fireEvent.click(screen.getByTestId('audit-export-save'));
    await waitFor(() =>
      expect(localArea.auditExport).toEqual({
        endpoint: 'https://other.example.org/v1/logs',
        encoding: 'protobuf',
      }),
    );
  });

  it('shows the organisation encoding locked over the person one; a bad one leaves it open', async () => {
    localArea.auditExport = { endpoint: 'https://otel.example.org/v1/logs', encoding: 'json' };
    setManagedPolicy({ auditExport: { encoding: 'protobuf' } });
    render(h(AuditExportField, { disabled: false }));
    const select = (await screen.findByTestId('audit-export-encoding')) as HTMLSelectElement;
    await waitFor(() => expect(select.value).toBe('protobuf'));
    expect(select.disabled).toBe(true);
    expect(screen.getByTestId('locked').textContent).toBe('Set by your organisation');
    // The endpoint is the person's: still editable.
    expect((screen.getByTestId('audit-export-endpoint') as HTMLInputElement).disabled).toBe(false);

    setManagedPolicy({ auditExport: { encoding: 'grpc' } });
    await waitFor(() => expect(select.disabled).toBe(false));
    expect(select.value).toBe('json');
    expect(screen.queryByTestId('locked')).toBeNull();
  });
});
