// Package messaging holds the after-sale conversation of a pack and the
// messaging rules every text sent through it must follow (no social-network
// links, no shortened links, no html, no offensive language). The rules are
// data: a table of named patterns, so that other modules (note moderation)
// check their texts with the same Check.
package messaging

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/feria/feria/core/kernel"
)

// Message is one message of a pack's after-sale conversation.
type Message struct {
	ID          string    `json:"id"`
	PackID      int64     `json:"pack_id"`
	FromUserID  int64     `json:"from_user_id"`
	ToUserID    int64     `json:"to_user_id"`
	Text        string    `json:"text"`
	Kind        string    `json:"kind"` // e.g. "billing_info_request"
	DateCreated time.Time `json:"date_created"`
	// DateRead is when the recipient read the message (a read of the
	// conversation with mark_as_read); nil while unread.
	DateRead *time.Time `json:"date_read,omitempty"`
	// Attachments are the files the message carries, in the order sent.
	Attachments []Attachment `json:"attachments,omitempty"`
}

// KindPostSale is the kind of a message a party of the pack wrote
// (POST /messages/packs/{pack_id}/sellers/{seller_id}).
const KindPostSale = "post_sale"

// Rule is one messaging rule: a text matching Pattern breaks it.
type Rule struct {
	// Name identifies the rule in errors and logs, e.g. "social_network_link".
	Name string
	// Message tells the sender what is not allowed.
	Message string
	// Pattern is matched case-insensitively against the text.
	Pattern *regexp.Regexp
}

// ruleSpec is the data a Rule is built from.
type ruleSpec struct {
	name, message string
	// words are matched as whole words; hosts as a domain anywhere in the
	// text (with or without scheme); raw is a regular expression.
	words, hosts []string
	raw          string
}

// specs is the rule set, in the order rules are checked. Keep the lists
// lowercase; matching ignores case.
var specs = []ruleSpec{
	{
		name: "html", message: "html is not allowed in messages",
		raw: `<\s*/?\s*[a-z][a-z0-9]*(\s[^<>]*)?/?\s*>|&(lt|gt|amp|quot|#\d+|#x[0-9a-f]+);`,
	},
	{
		name: "social_network_link", message: "links to social networks are not allowed in messages",
		hosts: []string{"facebook.com", "fb.com", "fb.me", "instagram.com", "instagr.am", "twitter.com", "x.com",
			"tiktok.com", "linkedin.com", "youtube.com", "youtu.be", "pinterest.com", "snapchat.com", "whatsapp.com",
			"wa.me", "chat.whatsapp.com", "t.me", "telegram.me", "telegram.org", "discord.gg", "discord.com", "reddit.com",
			"threads.net"},
	},
	{
		name: "shortened_link", message: "shortened links are not allowed in messages",
		hosts: []string{"bit.ly", "tinyurl.com", "goo.gl", "ow.ly", "t.co", "is.gd", "buff.ly", "rebrand.ly",
			"cutt.ly", "shorturl.at", "tiny.cc", "rb.gy", "bl.ink", "s.id", "v.gd", "lnkd.in", "shorte.st", "adf.ly"},
	},
	{
		name: "offensive_language", message: "offensive language is not allowed in messages",
		words: []string{"idiot", "idiota", "imbecil", "imbécil", "estupido", "estúpido", "stupid", "moron", "pelotudo",
			"boludo", "tarado", "pendejo", "cabron", "cabrón", "mierda", "shit", "fuck", "fucking", "asshole",
			"bastard", "puta", "puto", "carajo", "concha", "gilipollas", "huevon", "huevón", "weon", "culiao"},
	},
}

// Rules is the rule set, built once from specs.
var Rules = build(specs)

func build(specs []ruleSpec) []Rule {
	out := make([]Rule, 0, len(specs))
	for _, s := range specs {
		var alts []string
		if s.raw != "" {
			alts = append(alts, s.raw)
		}
		for _, h := range s.hosts {
			// The host as a whole domain label sequence: not preceded by a
			// letter, digit, dot-less label or hyphen, and followed by a path,
			// port, punctuation or the end.
			alts = append(alts, `(^|[^a-z0-9.\-])(www\.)?`+regexp.QuoteMeta(h)+`($|[/:?#\s,;!)"'\]]|\.(\s|$))`)
		}
		if len(s.words) > 0 {
			q := make([]string, len(s.words))
			for i, w := range s.words {
				q[i] = regexp.QuoteMeta(w)
			}
			// \b is ASCII-only in Go; spell the word boundary out so that
			// accented words match whole too.
			alts = append(alts, `(^|[^\p{L}\p{N}])(`+strings.Join(q, "|")+`)($|[^\p{L}\p{N}])`)
		}
		out = append(out, Rule{Name: s.name, Message: s.message,
			Pattern: regexp.MustCompile(`(?i)(` + strings.Join(alts, "|") + `)`)})
	}
	return out
}

// ErrRuleBroken is the error of a text that breaks a messaging rule; its
// cause names the rule.
var ErrRuleBroken = kernel.E(kernel.NotAcceptable, "not_acceptable", "text is not valid under the messaging rules")

// Violation returns the first rule text breaks, if any.
func Violation(text string) (Rule, bool) {
	for _, r := range Rules {
		if r.Pattern.MatchString(text) {
			return r, true
		}
	}
	return Rule{}, false
}

// Check returns nil for a text that follows every rule, else ErrRuleBroken
// naming the first rule broken (its cause code is the rule's Name).
func Check(text string) error {
	if r, ok := Violation(text); ok {
		return ErrRuleBroken.With(r.Message).WithCause(r.Name, r.Message)
	}
	return nil
}

// MaxBillingText is the contract's limit of a billing request text.
const MaxBillingText = 500

// Errors of a billing request text, in the marketplace's words.
var (
	ErrTextEmpty   = kernel.E(kernel.Invalid, "bad_request", "The text content cannot be empty")
	ErrTextTooLong = kernel.E(kernel.Invalid, "bad_request", fmt.Sprintf("The text content is too long, max characters allowed are: %d", MaxBillingText))
	ErrNoMessaging = kernel.E(kernel.Permission, "forbidden", "You cannot ask for the billing_info because you are not allowed to use the messaging service")
	// ErrBillingRuleBroken is ErrRuleBroken of a billing request; its cause
	// names the rule broken.
	ErrBillingRuleBroken = kernel.E(kernel.NotAcceptable, "not_acceptable", "You cannot ask for the billing_info because the text is not valid. Check Messaging Post Sale documentation for more information")
	// ErrMessageNotFound and ErrNotYourMessage answer GET /messages/{id}.
	ErrMessageNotFound = kernel.E(kernel.NotExist, "not_found", "message not found")
	ErrNotYourMessage  = kernel.E(kernel.Permission, "forbidden", "the caller is neither the seller nor the buyer of the message's pack")
)

// CheckText applies the length limit (in characters, not bytes) and the
// messaging rules.
func CheckText(text string, max int) error {
	if strings.TrimSpace(text) == "" {
		return ErrTextEmpty.WithCause("text", "text is required")
	}
	if !utf8.ValidString(text) {
		return kernel.E(kernel.Invalid, "bad_request", "text is not valid UTF-8").WithCause("text", "text is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(text); n > max {
		return ErrTextTooLong.Withf("The text content is too long, max characters allowed are: %d", max).
			WithCause("text", fmt.Sprintf("text has %d characters; at most %d are allowed", n, max))
	}
	return Check(text)
}
