package e2e

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/test/testenv"
)

// TestIntegrationEndToEnd plays an integration written for the marketplace,
// pointed at the real feria binary (only its base URL changed): the
// authorization flow with PKCE through the approval page, the code
// exchanged for a token pair, a refresh, a scan of every item of the seller
// until the empty block, a multi-get of them, the item's questions, the
// pack's after-sale messages and the fiscal documents' list. Once on the
// embedded backends (what `make run` starts), once on PostgreSQL, Redis and
// MinIO.
func TestIntegrationEndToEnd(t *testing.T) {
	t.Parallel() // mostly waits on the binary's start
	bin := feriaBinary(t)
	t.Run("embedded", func(t *testing.T) {
		integration(t, startFeria(t, bin, "DATABASE_URL=", "REDIS_URL=", "S3_ENDPOINT="))
	})
	t.Run("real", func(t *testing.T) {
		redisPort := freePort(t)
		startRedis(t, redisPort)
		s3, bucket := testenv.S3(t), testenv.S3Bucket(t)
		integration(t, startFeria(t, bin, "CALLBACK_ALLOW_PRIVATE=true", "DATABASE_URL="+testenv.PostgresSchemaURL(t), fmt.Sprintf("REDIS_URL=redis://127.0.0.1:%d/0", redisPort),
			"S3_ENDPOINT="+s3.Endpoint, "S3_ACCESS_KEY="+s3.AccessKey, "S3_SECRET_KEY="+s3.SecretKey, "S3_BUCKET="+bucket,
			fmt.Sprint("S3_USE_SSL=", s3.UseSSL)))
	})
}

const integrationKey = "integration-sandbox-key"

// startFeria runs `feria serve` with env and returns its base URL once it
// is ready.
func startFeria(t *testing.T, bin string, env ...string) string {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append(os.Environ(), "HTTP_ADDR=127.0.0.1:"+fmt.Sprint(port), "DATA_DIR="+t.TempDir(),
		"SANDBOX_KEY="+integrationKey, "LOG_LEVEL=warn"), env...)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill() //nolint:errcheck // the test is over
		cmd.Wait()         //nolint:errcheck // killed
		if t.Failed() {
			t.Logf("feria's log:\n%s", logs.String())
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for i := 0; i < 200; i++ {
		if res, err := http.Get(base + "/health/ready"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return base
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("feria did not become ready\n%s", logs.String())
	return ""
}

// client is the integration's HTTP client: net/http, nothing of feria's.
type client struct {
	t     *testing.T
	base  string
	http  *http.Client
	token string
}

func (c *client) call(method, path string, body io.Reader, header ...string) (int, []byte, http.Header) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if c.token != "" && req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b, res.Header
}

// get decodes a 200 answer of path into v.
func (c *client) get(path string, v any) {
	c.t.Helper()
	status, b, _ := c.call("GET", path, nil)
	if status != 200 {
		c.t.Fatalf("GET %s: %d %s", path, status, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		c.t.Fatalf("GET %s: %v: %s", path, err, b)
	}
}

func (c *client) sandbox(method, path, body string) {
	c.t.Helper()
	status, b, _ := c.call(method, "/sandbox"+path, strings.NewReader(body), "X-Sandbox-Key", integrationKey, "Content-Type", "application/json")
	if status >= 300 {
		c.t.Fatalf("sandbox %s %s: %d %s", method, path, status, b)
	}
}

// tokenPair is the marketplace's answer of POST /oauth/token.
type tokenPair struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	Scope        string `json:"scope"`
	UserID       int64  `json:"user_id"`
	RefreshToken string `json:"refresh_token"`
}

func (c *client) oauthToken(form url.Values) (int, tokenPair, []byte) {
	c.t.Helper()
	status, b, _ := c.call("POST", "/oauth/token", strings.NewReader(form.Encode()),
		"Content-Type", "application/x-www-form-urlencoded", "Accept", "application/json")
	var p tokenPair
	if status == 200 {
		if err := json.Unmarshal(b, &p); err != nil {
			c.t.Fatal(err)
		}
	}
	return status, p, b
}

var (
	hiddenInput = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)
	userRadio   = regexp.MustCompile(`<input type="radio" name="user_id" value="(\d+)"[^>]*> ([^ ]+) `)
	accessToken = regexp.MustCompile(`^APP_USR-789-\d{6}-[0-9a-f]+-123$`)
	refreshTok  = regexp.MustCompile(`^TG-[0-9a-f]+-123$`)
)

func integration(t *testing.T, base string) {
	c := &client{t: t, base: base, http: &http.Client{Timeout: 20 * time.Second}}
	raw, err := os.ReadFile("../../deploy/demo/fixtures.json")
	if err != nil {
		t.Fatal(err)
	}
	c.sandbox("POST", "/fixtures", string(raw))

	// The integration's own server, where the marketplace sends the user
	// back with the code.
	type callback struct{ code, state, err string }
	back := make(chan callback, 1)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		back <- callback{q.Get("code"), q.Get("state"), q.Get("error")}
		io.WriteString(w, "authorized, you may close this window") //nolint:errcheck // a test page
	}))
	defer app.Close()
	redirect := app.URL + "/callback"
	c.sandbox("PUT", "/applications/789", fmt.Sprintf(`{"name":"my-integration","owner_id":123,"client_secret":"app-secret",
		"callback_url":"http://127.0.0.1:9/notifications","topics":["items"],"redirect_uris":[%q]}`, redirect))

	// 1. Authorization with PKCE (S256), as the marketplace's guide shows it.
	vb := make([]byte, 48)
	rand.Read(vb) //nolint:errcheck // never fails
	verifier := base64.RawURLEncoding.EncodeToString(vb)
	sum := sha256.Sum256([]byte(verifier))
	state := "st-" + base64.RawURLEncoding.EncodeToString(vb[:9])
	auth := "/authorization?" + url.Values{"response_type": {"code"}, "client_id": {"789"}, "redirect_uri": {redirect}, "state": {state},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}.Encode()
	// The user sees the approval page and picks the seller (a browser
	// submitting the page's form).
	status, page, _ := c.call("GET", auth, nil)
	if status != 200 {
		t.Fatalf("approval page: %d %s", status, page)
	}
	form := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(string(page), -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	var users []string
	for _, m := range userRadio.FindAllStringSubmatch(string(page), -1) {
		users = append(users, m[1]+" "+m[2])
	}
	if strings.Join(users, ", ") != "123 TESTSELLER, 456 TESTBUYER, 789 TESTBRAND" {
		t.Fatalf("the page lists %v", users)
	}
	form.Set("user_id", "123")
	form.Set("decision", "allow")
	// The browser follows the redirect to the integration's callback.
	status, body, _ := c.call("GET", "/authorization?"+form.Encode(), nil)
	if status != 200 || !strings.Contains(string(body), "authorized") {
		t.Fatalf("approval: %d %s", status, body)
	}
	cb := <-back
	if cb.err != "" || cb.state != state || cb.code == "" {
		t.Fatalf("callback: %+v", cb)
	}

	// 2. The code for a token pair; a code works once.
	exchange := url.Values{"grant_type": {"authorization_code"}, "client_id": {"789"}, "client_secret": {"app-secret"},
		"code": {cb.code}, "redirect_uri": {redirect}, "code_verifier": {verifier}}
	status, pair, b := c.oauthToken(exchange)
	if status != 200 || !accessToken.MatchString(pair.AccessToken) || !refreshTok.MatchString(pair.RefreshToken) || pair.TokenType != "bearer" ||
		pair.ExpiresIn != 21600 || pair.Scope != "offline_access read write" || pair.UserID != 123 {
		t.Fatalf("exchange: %d %s", status, b)
	}
	if status, _, b := c.oauthToken(exchange); status != 400 || !strings.Contains(string(b), `"error":"invalid_grant"`) {
		t.Fatalf("second exchange: %d %s", status, b)
	}
	// Clients read the user id off the token's end.
	if id := pair.AccessToken[strings.LastIndex(pair.AccessToken, "-")+1:]; id != "123" {
		t.Fatalf("user id of the token: %s", id)
	}

	// 3. Refresh, as integrations do before the token expires.
	status, next, b := c.oauthToken(url.Values{"grant_type": {"refresh_token"}, "client_id": {"789"}, "client_secret": {"app-secret"},
		"refresh_token": {pair.RefreshToken}})
	if status != 200 || next.AccessToken == pair.AccessToken || !accessToken.MatchString(next.AccessToken) {
		t.Fatalf("refresh: %d %s", status, b)
	}
	c.token = next.AccessToken

	// 4. Every item of the seller: scan until the empty block.
	var ids []string
	scroll := ""
	for calls := 0; ; calls++ {
		if calls > 10 {
			t.Fatal("the scan does not end")
		}
		var block struct {
			Results  []string `json:"results"`
			ScrollID string   `json:"scroll_id"`
			Paging   struct {
				Total int `json:"total"`
			} `json:"paging"`
		}
		path := "/users/123/items/search?search_type=scan&limit=3"
		if scroll != "" {
			path += "&scroll_id=" + url.QueryEscape(scroll)
		}
		c.get(path, &block)
		if len(block.Results) == 0 {
			break
		}
		ids = append(ids, block.Results...)
		scroll = block.ScrollID
		if block.Paging.Total != 4 {
			t.Errorf("total %d", block.Paging.Total)
		}
	}
	if strings.Join(ids, ",") != "MLA1100,MLA1101,MLA1102,MLA1200" {
		t.Fatalf("scanned %v", ids)
	}

	// 5. Their details in one multi-get.
	var multi []struct {
		Code int `json:"code"`
		Body struct {
			ID     string `json:"id"`
			Title  string `json:"title"`
			Status string `json:"status"`
		} `json:"body"`
	}
	c.get("/items?ids="+strings.Join(ids, ",")+"&attributes=id,title,status", &multi)
	if len(multi) != 4 {
		t.Fatalf("multi-get: %+v", multi)
	}
	for i, m := range multi {
		if m.Code != 200 || m.Body.ID != ids[i] || m.Body.Title == "" || m.Body.Status != "active" {
			t.Errorf("multi-get %d: %+v", i, m)
		}
	}

	// 6. A buyer asks; the integration reads the item's questions.
	status, b, _ = c.call("POST", "/questions", strings.NewReader(`{"item_id":"MLA1100","text":"¿Sirve para el Ka 2016?"}`),
		"Authorization", "Bearer APP_USR-demo-buyer", "Content-Type", "application/json")
	if status != 201 {
		t.Fatalf("question: %d %s", status, b)
	}
	var questions struct {
		Total     int `json:"total"`
		Limit     int `json:"limit"`
		Questions []struct {
			Text string `json:"text"`
			From struct {
				ID int64 `json:"id"`
			} `json:"from"`
		} `json:"questions"`
	}
	c.get("/questions/search?item=MLA1100", &questions)
	if questions.Total != 1 || questions.Limit != 50 || len(questions.Questions) != 1 || questions.Questions[0].From.ID != 456 {
		t.Fatalf("questions: %+v", questions)
	}

	// 7. The pack's after-sale messages: the seller asks for billing data.
	pack := "2000001234"
	status, b, _ = c.call("POST", "/packs/"+pack+"/fiscal_documents/billing_info", strings.NewReader(`{"text":"¿Me pasás tu CUIT?"}`),
		"Content-Type", "application/json")
	if status != 201 {
		t.Fatalf("billing request: %d %s", status, b)
	}
	var conv struct {
		Messages []struct {
			From struct {
				UserID int64 `json:"user_id"`
			} `json:"from"`
			To struct {
				UserID int64 `json:"user_id"`
			} `json:"to"`
			Text string `json:"text"`
		} `json:"messages"`
	}
	c.get("/messages/packs/"+pack+"/sellers/123?tag=post_sale", &conv)
	if len(conv.Messages) != 1 || conv.Messages[0].From.UserID != 123 || conv.Messages[0].To.UserID != 456 || conv.Messages[0].Text != "¿Me pasás tu CUIT?" {
		t.Fatalf("messages: %+v", conv)
	}

	// 8. An invoice, and the fiscal documents' list.
	// The token as the query parameter, as the marketplace shows fiscal calls.
	pdf, contentType := multipartPDF(t)
	tok := c.token
	c.token = ""
	status, b, _ = c.call("POST", "/packs/"+pack+"/fiscal_documents?access_token="+url.QueryEscape(tok), pdf, "Content-Type", contentType)
	c.token = tok
	if status != 201 {
		t.Fatalf("upload: %d %s", status, b)
	}
	var list struct {
		PackID int64 `json:"pack_id"`
		Docs   []struct {
			FileType string `json:"file_type"`
			Filename string `json:"filename"`
		} `json:"fiscal_documents"`
	}
	c.get("/packs/"+pack+"/fiscal_documents", &list)
	if list.PackID != 2000001234 || len(list.Docs) != 1 || list.Docs[0].FileType != "application/pdf" || list.Docs[0].Filename != "factura.pdf" {
		t.Fatalf("fiscal documents: %+v", list)
	}
}

// multipartPDF is an upload body of one PDF, and its content type.
func multipartPDF(t *testing.T) (io.Reader, string) {
	t.Helper()
	var body strings.Builder
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="fiscal_document"; filename="factura.pdf"`)
	h.Set("Content-Type", "application/pdf")
	pw, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	pw.Write(docPDF) //nolint:errcheck // a strings.Builder
	w.Close()
	return strings.NewReader(body.String()), w.FormDataContentType()
}
