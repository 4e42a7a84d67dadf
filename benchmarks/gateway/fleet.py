"""A 200-tool mesh: 20 agents, one per domain, 10 tools each, as a team's mesh might hold them.

Each tool: name, description, parameters (name → JSON type). Names repeat across domains where real meshes
repeat them (`search`, `list`, `get_status`): the gateway prefixes them with their agent's name.
"""

from __future__ import annotations

from typing import Any

STR, NUM, INT, BOOL = "string", "number", "integer", "boolean"

DOMAINS: dict[str, list[tuple[str, str, dict[str, str]]]] = {
    "weather": [
        ("current_weather", "Current temperature, wind and conditions for a city", {"city": STR}),
        ("forecast", "Daily weather forecast for the next days in a city", {"city": STR, "days": INT}),
        ("air_quality", "Air quality index and pollutant levels for a location", {"city": STR}),
        ("uv_index", "Ultraviolet radiation index and sunburn risk for today", {"city": STR}),
        ("severe_alerts", "Active storm, flood and heat warnings for a region", {"region": STR}),
        ("historical_weather", "Past weather observations for a date and place", {"city": STR, "date": STR}),
        ("sunrise_sunset", "Sunrise and sunset times for a place and date", {"city": STR, "date": STR}),
        ("pollen_count", "Pollen levels by plant type for allergy sufferers", {"city": STR}),
        ("marine_forecast", "Wave height, tides and sea temperature for a coast", {"coast": STR}),
        ("rain_radar", "Precipitation radar image for the next two hours", {"lat": NUM, "lon": NUM}),
    ],
    "calendar": [
        (
            "create_event",
            "Schedule a new meeting or appointment on the calendar",
            {"title": STR, "start": STR, "end": STR, "attendees": STR},
        ),
        ("list_events", "Events on the calendar between two dates", {"start": STR, "end": STR}),
        ("cancel_event", "Cancel a scheduled meeting and notify attendees", {"event_id": STR}),
        (
            "find_free_slot",
            "Find a time when all attendees are available",
            {"attendees": STR, "duration": INT},
        ),
        ("reschedule_event", "Move an existing meeting to another time", {"event_id": STR, "start": STR}),
        ("add_reminder", "Add a reminder notification before an event", {"event_id": STR, "minutes": INT}),
        ("list_calendars", "Calendars the user can read or write", {}),
        ("share_calendar", "Give another person access to a calendar", {"calendar": STR, "email": STR}),
        (
            "out_of_office",
            "Set an out-of-office period with an auto reply",
            {"start": STR, "end": STR, "message": STR},
        ),
        ("room_booking", "Book a meeting room for a time slot", {"room": STR, "start": STR, "end": STR}),
    ],
    "mail": [
        ("send_email", "Send an email message to recipients", {"to": STR, "subject": STR, "body": STR}),
        ("search_inbox", "Search received emails by sender, subject or words", {"query": STR}),
        ("read_email", "Full content of one email message", {"message_id": STR}),
        ("reply_email", "Reply to an email thread", {"message_id": STR, "body": STR}),
        ("forward_email", "Forward an email to other recipients", {"message_id": STR, "to": STR}),
        ("archive_email", "Move an email out of the inbox into the archive", {"message_id": STR}),
        ("create_draft", "Save an email draft without sending it", {"to": STR, "subject": STR, "body": STR}),
        ("list_labels", "Mail folders and labels", {}),
        ("unsubscribe", "Unsubscribe from a mailing list newsletter", {"sender": STR}),
        ("spam_report", "Mark a message as junk spam", {"message_id": STR}),
    ],
    "files": [
        ("read_file", "Read the text content of a file", {"path": STR}),
        ("write_file", "Write text content to a file, replacing it", {"path": STR, "content": STR}),
        ("list_directory", "Files and folders inside a directory", {"path": STR}),
        ("move_file", "Move or rename a file", {"source": STR, "destination": STR}),
        ("delete_file", "Delete a file permanently", {"path": STR}),
        ("search_files", "Find files whose names match a pattern", {"pattern": STR, "root": STR}),
        ("file_info", "Size, owner and modification time of a file", {"path": STR}),
        ("zip_folder", "Compress a folder into a zip archive", {"path": STR}),
        ("checksum", "SHA-256 hash of a file's bytes", {"path": STR}),
        ("disk_usage", "Space used and free on a disk volume", {"volume": STR}),
    ],
    "code": [
        (
            "create_pull_request",
            "Open a pull request from a branch for review",
            {"repo": STR, "branch": STR, "title": STR},
        ),
        ("list_issues", "Open issues of a repository with their labels", {"repo": STR}),
        (
            "create_issue",
            "File a new bug report or feature request issue",
            {"repo": STR, "title": STR, "body": STR},
        ),
        ("merge_pull_request", "Merge an approved pull request", {"repo": STR, "number": INT}),
        (
            "commit_history",
            "Recent commits of a branch with authors and messages",
            {"repo": STR, "branch": STR},
        ),
        ("run_ci", "Start the continuous integration pipeline for a commit", {"repo": STR, "commit": STR}),
        ("code_search", "Search source code across repositories", {"query": STR}),
        ("review_comments", "Review comments left on a pull request", {"repo": STR, "number": INT}),
        ("create_branch", "Create a git branch from another", {"repo": STR, "name": STR, "base": STR}),
        ("release", "Tag a version and publish release notes", {"repo": STR, "version": STR}),
    ],
    "tickets": [
        ("open_ticket", "Open a customer support ticket", {"customer": STR, "subject": STR, "priority": STR}),
        ("assign_ticket", "Assign a support ticket to an agent", {"ticket_id": STR, "agent": STR}),
        ("close_ticket", "Resolve and close a support ticket", {"ticket_id": STR, "resolution": STR}),
        ("ticket_status", "Current state and history of a ticket", {"ticket_id": STR}),
        ("escalate_ticket", "Escalate a ticket to the next support tier", {"ticket_id": STR}),
        ("list_tickets", "Tickets in a queue filtered by state", {"queue": STR, "state": STR}),
        ("add_ticket_note", "Add an internal note to a ticket", {"ticket_id": STR, "note": STR}),
        ("sla_breaches", "Tickets about to miss their service level agreement", {}),
        ("merge_tickets", "Merge duplicate tickets into one", {"ticket_ids": STR}),
        ("satisfaction_survey", "Send a customer satisfaction survey after a ticket", {"ticket_id": STR}),
    ],
    "payments": [
        ("charge_card", "Charge a customer's credit card", {"customer": STR, "amount": NUM, "currency": STR}),
        ("refund_payment", "Refund a payment fully or partly", {"payment_id": STR, "amount": NUM}),
        ("list_payments", "Payments received in a period", {"start": STR, "end": STR}),
        ("create_invoice", "Issue an invoice to a customer", {"customer": STR, "items": STR}),
        ("invoice_status", "Whether an invoice is paid, due or overdue", {"invoice_id": STR}),
        ("create_subscription", "Start a recurring billing subscription", {"customer": STR, "plan": STR}),
        ("cancel_subscription", "Stop a recurring subscription", {"subscription_id": STR}),
        ("payout_schedule", "When settled funds are paid out to the bank", {}),
        (
            "dispute_chargeback",
            "Respond to a card chargeback dispute with evidence",
            {"dispute_id": STR, "evidence": STR},
        ),
        ("tax_rate", "Sales tax or VAT rate for a country and region", {"country": STR, "region": STR}),
    ],
    "currency": [
        (
            "convert_currency",
            "Convert an amount of money from one currency to another",
            {"amount": NUM, "from_currency": STR, "to_currency": STR},
        ),
        ("exchange_rates", "Latest exchange rates against a base currency", {"base": STR}),
        (
            "historical_rate",
            "Exchange rate between two currencies on a past date",
            {"base": STR, "quote": STR, "date": STR},
        ),
        ("crypto_price", "Current price of a cryptocurrency such as bitcoin", {"symbol": STR}),
        ("currency_info", "Name, symbol and countries of a currency code", {"code": STR}),
        ("rate_alert", "Alert when an exchange rate crosses a threshold", {"pair": STR, "threshold": NUM}),
        ("inflation_rate", "Consumer price inflation of a country", {"country": STR}),
        ("interest_rates", "Central bank policy interest rates", {"country": STR}),
        ("money_format", "Format an amount for a locale", {"amount": NUM, "locale": STR}),
        ("fee_estimate", "Fee of an international money transfer", {"amount": NUM, "corridor": STR}),
    ],
    "shipping": [
        ("track_package", "Where a parcel is now from its tracking number", {"tracking_number": STR}),
        (
            "shipping_quote",
            "Price and delivery time to ship a parcel",
            {"origin": STR, "destination": STR, "weight_kg": NUM},
        ),
        ("create_label", "Print a shipping label for a parcel", {"order_id": STR, "carrier": STR}),
        ("schedule_pickup", "Ask a carrier to collect parcels", {"address": STR, "date": STR}),
        ("return_label", "Create a label for a customer to return goods", {"order_id": STR}),
        ("delivery_exceptions", "Parcels delayed, lost or damaged in transit", {}),
        (
            "customs_form",
            "Customs declaration for an international shipment",
            {"order_id": STR, "contents": STR},
        ),
        ("carrier_list", "Carriers and services available for a route", {"origin": STR, "destination": STR}),
        ("address_validate", "Check that a postal address exists and is deliverable", {"address": STR}),
        ("proof_of_delivery", "Signature and photo proving a delivery", {"tracking_number": STR}),
    ],
    "crm": [
        ("find_customer", "Look up a customer by name, email or phone", {"query": STR}),
        (
            "create_contact",
            "Add a new contact person to the CRM",
            {"name": STR, "email": STR, "company": STR},
        ),
        ("update_contact", "Change a contact's details", {"contact_id": STR, "fields": STR}),
        ("log_call", "Record a phone call with a contact", {"contact_id": STR, "summary": STR}),
        ("pipeline", "Sales deals by stage with their value", {}),
        ("create_deal", "Open a sales opportunity for an account", {"account": STR, "value": NUM}),
        ("close_deal", "Mark a deal won or lost", {"deal_id": STR, "won": BOOL}),
        ("account_health", "Churn risk and usage score of a customer account", {"account": STR}),
        ("lead_score", "Score how likely a lead is to buy", {"lead_id": STR}),
        ("follow_ups", "Contacts due for a follow-up this week", {}),
    ],
    "inventory": [
        ("stock_level", "Units in stock of a product per warehouse", {"sku": STR}),
        ("reorder", "Place a purchase order to restock a product", {"sku": STR, "quantity": INT}),
        ("list_products", "Products in the catalog with prices", {"category": STR}),
        ("update_price", "Change the selling price of a product", {"sku": STR, "price": NUM}),
        ("low_stock", "Products below their reorder point", {}),
        (
            "transfer_stock",
            "Move units between warehouses",
            {"sku": STR, "from_site": STR, "to_site": STR, "quantity": INT},
        ),
        ("product_details", "Description, dimensions and supplier of a product", {"sku": STR}),
        ("stock_count", "Record a physical stock count", {"sku": STR, "counted": INT}),
        ("supplier_lead_time", "Days a supplier takes to deliver", {"supplier": STR}),
        ("expiring_batches", "Batches of perishable goods near their expiry date", {"days": INT}),
    ],
    "database": [
        ("run_query", "Run a read-only SQL query and return rows", {"sql": STR}),
        ("list_tables", "Tables of a database schema", {"schema": STR}),
        ("describe_table", "Columns, types and indexes of a table", {"table": STR}),
        ("slow_queries", "The slowest queries of the last hour", {}),
        ("backup_database", "Take a backup snapshot of a database", {"database": STR}),
        ("restore_backup", "Restore a database from a backup snapshot", {"backup_id": STR}),
        ("explain_query", "Execution plan of a SQL query", {"sql": STR}),
        ("table_size", "Disk size and row count of a table", {"table": STR}),
        ("replication_lag", "How far replicas are behind the primary", {}),
        ("kill_session", "Terminate a blocking database session", {"session_id": INT}),
    ],
    "kubernetes": [
        ("list_pods", "Pods of a namespace with their status", {"namespace": STR}),
        ("pod_logs", "Recent log lines of a pod's container", {"pod": STR, "lines": INT}),
        (
            "scale_deployment",
            "Change the number of replicas of a deployment",
            {"deployment": STR, "replicas": INT},
        ),
        ("restart_deployment", "Roll out a restart of a deployment's pods", {"deployment": STR}),
        ("describe_pod", "Events and conditions of a pod", {"pod": STR}),
        ("node_usage", "CPU and memory used on each cluster node", {}),
        ("apply_manifest", "Apply a YAML manifest to the cluster", {"manifest": STR}),
        ("rollback_deployment", "Return a deployment to its previous revision", {"deployment": STR}),
        ("list_services", "Services and their cluster IPs and ports", {"namespace": STR}),
        ("get_secret_names", "Names of the secrets in a namespace", {"namespace": STR}),
    ],
    "dns": [
        ("lookup_dns", "Resolve DNS records of a domain name", {"domain": STR, "type": STR}),
        (
            "create_record",
            "Add a DNS record to a zone",
            {"zone": STR, "name": STR, "type": STR, "value": STR},
        ),
        ("delete_record", "Remove a DNS record from a zone", {"zone": STR, "record_id": STR}),
        ("whois", "Registrant and expiry of a domain", {"domain": STR}),
        ("certificate_expiry", "When a site's TLS certificate expires", {"host": STR}),
        ("ping_host", "Round-trip time to a host", {"host": STR}),
        ("traceroute", "Network hops to a host", {"host": STR}),
        ("port_check", "Whether a TCP port of a host accepts connections", {"host": STR, "port": INT}),
        ("ip_geolocation", "Country and city of an IP address", {"ip": STR}),
        ("domain_availability", "Whether a domain name can be registered", {"domain": STR}),
    ],
    "translation": [
        ("translate_text", "Translate text into another language", {"text": STR, "target_language": STR}),
        ("detect_language", "Which language a text is written in", {"text": STR}),
        ("list_languages", "Languages the translator supports", {}),
        ("translate_document", "Translate a whole document file", {"path": STR, "target_language": STR}),
        (
            "glossary_add",
            "Add a term with its fixed translation to the glossary",
            {"term": STR, "translation": STR},
        ),
        ("transliterate", "Write text in another script such as Latin letters", {"text": STR, "script": STR}),
        ("spell_check", "Spelling and grammar mistakes in a text", {"text": STR, "language": STR}),
        ("summarize_text", "A short summary of a long text", {"text": STR}),
        ("text_to_speech", "Spoken audio of a text", {"text": STR, "voice": STR}),
        ("speech_to_text", "Transcribe an audio recording into text", {"audio_url": STR}),
    ],
    "maps": [
        ("geocode", "Latitude and longitude of an address", {"address": STR}),
        ("reverse_geocode", "Address at a latitude and longitude", {"lat": NUM, "lon": NUM}),
        (
            "directions",
            "Route and travel time between two places",
            {"origin": STR, "destination": STR, "mode": STR},
        ),
        ("nearby_places", "Restaurants, shops or sights near a location", {"location": STR, "kind": STR}),
        ("distance_matrix", "Travel distances between several places", {"places": STR}),
        ("traffic", "Current traffic congestion on a route", {"route": STR}),
        ("timezone_of", "Time zone of a location", {"location": STR}),
        ("elevation", "Height above sea level of a point", {"lat": NUM, "lon": NUM}),
        ("static_map", "Map image of an area", {"center": STR, "zoom": INT}),
        ("transit_departures", "Next bus and train departures from a stop", {"stop": STR}),
    ],
    "music": [
        ("play_song", "Start playing a song by title or artist", {"query": STR}),
        ("pause_playback", "Pause the music that is playing", {}),
        ("create_playlist", "Create a playlist of songs", {"name": STR, "songs": STR}),
        ("search_music", "Find songs, albums or artists", {"query": STR}),
        ("lyrics", "Lyrics of a song", {"title": STR, "artist": STR}),
        ("recommend_songs", "Songs similar to ones the user likes", {"seed": STR}),
        ("now_playing", "The song playing right now", {}),
        ("set_volume", "Change the playback volume", {"level": INT}),
        ("concerts", "Upcoming concerts of an artist near a city", {"artist": STR, "city": STR}),
        ("podcast_episodes", "Latest episodes of a podcast", {"podcast": STR}),
    ],
    "news": [
        ("top_headlines", "Top news headlines for a country", {"country": STR}),
        ("search_news", "News articles about a topic", {"query": STR}),
        ("article_text", "Full text of a news article", {"url": STR}),
        ("news_sources", "Newspapers and outlets available", {}),
        ("trending_topics", "Topics trending on social media now", {}),
        ("fact_check", "Fact-check ratings of a claim", {"claim": STR}),
        ("press_releases", "Press releases of a company", {"company": STR}),
        ("sports_scores", "Live and final scores of games", {"league": STR}),
        ("stock_news", "News moving the price of a stock", {"ticker": STR}),
        ("daily_briefing", "A morning briefing of the day's news", {}),
    ],
    "stocks": [
        ("stock_quote", "Current share price of a stock ticker", {"ticker": STR}),
        ("price_history", "Daily closing prices of a stock", {"ticker": STR, "days": INT}),
        ("company_financials", "Revenue, profit and balance sheet of a company", {"ticker": STR}),
        ("portfolio_value", "Current value of the user's investment portfolio", {}),
        ("buy_stock", "Place an order to buy shares", {"ticker": STR, "shares": INT}),
        ("sell_stock", "Place an order to sell shares", {"ticker": STR, "shares": INT}),
        ("dividends", "Dividend payments and yield of a stock", {"ticker": STR}),
        ("market_movers", "Stocks with the biggest gains and losses today", {}),
        ("analyst_ratings", "Analysts' buy, hold and sell ratings", {"ticker": STR}),
        ("earnings_calendar", "Upcoming quarterly earnings reports", {}),
    ],
    "hr": [
        ("employee_lookup", "Find an employee's role, team and manager", {"name": STR}),
        ("request_leave", "Request vacation or sick leave days", {"employee": STR, "start": STR, "end": STR}),
        ("leave_balance", "Vacation days an employee has left", {"employee": STR}),
        ("org_chart", "Reporting lines of a department", {"department": STR}),
        ("payslip", "Salary slip of an employee for a month", {"employee": STR, "month": STR}),
        ("post_job", "Publish a job opening", {"title": STR, "department": STR}),
        ("list_candidates", "Applicants for a job opening", {"job_id": STR}),
        ("schedule_interview", "Arrange an interview with a candidate", {"candidate": STR, "start": STR}),
        ("onboarding_tasks", "Checklist for a new hire's first weeks", {"employee": STR}),
        (
            "expense_claim",
            "Submit a business expense for reimbursement",
            {"employee": STR, "amount": NUM, "receipt_url": STR},
        ),
    ],
}


def fleet_agents(port_base: int = 30000) -> list[dict[str, Any]]:
    """One heartbeat body per domain agent (nothing listens on their ports: the gateway lists and searches
    what the registry holds; no tool is called)."""
    bodies = []
    for n, (domain, tools) in enumerate(DOMAINS.items()):
        entries = []
        for name, description, params in tools:
            schema = {
                "type": "object",
                "properties": {p: {"type": t} for p, t in params.items()},
                "required": list(params),
            }
            entries.append(
                {
                    "function_name": name,
                    "capability": name,
                    "version": "1.0.0",
                    "tags": [domain],
                    "description": description,
                    "inputSchema": schema,
                    "kwargs": {},
                }
            )
        bodies.append(
            {
                "agent_id": f"{domain}-bench",
                "name": domain,
                "agent_type": "mcp_agent",
                "version": "1.0.0",
                "http_host": "127.0.0.1",
                "http_port": port_base + n,
                "namespace": "default",
                "runtime": "python",
                "tools": entries,
            }
        )
    return bodies


def tool_count() -> int:
    return sum(len(tools) for tools in DOMAINS.values())
