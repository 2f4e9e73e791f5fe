package bench

import (
	"fmt"
	"strings"
)

// The payloads of the rows beyond the 1 KiB echo.

// escapeSpecials are the characters escapeText mixes into its text: each
// needs escaping in JSON, or is escaped by some encoders (encoding/json
// escapes <, >, & and U+2028 for HTML).
var escapeSpecials = []string{`"`, `\`, "\n", "\t", "\r", "\x00", "\x01", "\x1f", "<", ">", "&", "\u2028"}

// escapeText returns about n bytes of printable ASCII with escapeSpecials
// mixed through it, one character in eight, varying with seed.
func escapeText(n int, seed byte) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:-_"
	var b strings.Builder
	x := uint32(seed) + 1
	for i := 0; b.Len() < n; i++ {
		x = x*1664525 + 1013904223
		if i%8 == 7 {
			b.WriteString(escapeSpecials[(x>>24)%uint32(len(escapeSpecials))])
			continue
		}
		b.WriteByte(alphabet[(x>>24)%uint32(len(alphabet))])
	}
	return b.String()
}

// sourceBlock is one function of sourceFile: Go source whose comments are in
// Russian, Chinese and Japanese with emoji, and whose string literals hold
// quotes, backslashes and escapes.
const sourceBlock = `// processOrder%[1]d вычисляет итоговую сумму заказа и проверяет каждую позицию.
// 注文の合計を計算します。価格が負の場合はエラーを返します 🚀✅
func processOrder%[1]d(items []Item) (total float64, err error) {
	/* 处理每个项目 — обработка каждой позиции 📦 */
	for i, it := range items {
		if it.Price < 0 {
			return 0, fmt.Errorf("item %%d: negative price \"%%v\"\n", i, it.Price)
		}
		total += it.Price * float64(it.Qty) // 合計に加算 ➕ сумма
	}
	path := "C:\\orders\\" + strconv.Itoa(%[1]d) + "\tready"
	log.Printf("%%s: 完了 — готово 🎉", path)
	return total, nil
}

`

// sourceFile returns a Go source file of at least n bytes made of
// sourceBlock repeated with numbered functions.
func sourceFile(n int) string {
	var b strings.Builder
	b.WriteString("// Package orders — пакет заказов, 注文パッケージ, 订单包 🛒\npackage orders\n\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, sourceBlock, i)
	}
	return b.String()
}

// sourceDocument returns the document the didopen row opens: a 100 KB Go
// source file.
func sourceDocument(version int64) document {
	return document{
		URI:        fmt.Sprintf("file:///home/user/src/orders/orders_%d.go", version),
		LanguageID: "go",
		Version:    version,
		Text:       sourceFile(100_000),
	}
}
