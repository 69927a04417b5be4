package io.pixquota.throttle.okhttp;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import kotlin.jvm.JvmClassMappingKt;
import kotlin.jvm.functions.Function0;
import kotlin.reflect.KClass;
import okhttp3.Call;

/** A {@link Call}'s own tags, as OkHttp keeps them: one per type, set once, read by its listeners. Threadsafe. */
abstract class TaggedCall implements Call {
  private final Map<Class<?>, Object> tags = new ConcurrentHashMap<>();

  @Override
  public <T> T tag(Class<? extends T> type) {
    @SuppressWarnings("unchecked")
    T t = (T) tags.get(type);
    return t;
  }

  @Override
  public <T> T tag(KClass<T> type) {
    return tag(JvmClassMappingKt.getJavaClass(type));
  }

  @Override
  public <T> T tag(Class<T> type, Function0<? extends T> computeIfAbsent) {
    return type.cast(tags.computeIfAbsent(type, k -> computeIfAbsent.invoke()));
  }

  @Override
  public <T> T tag(KClass<T> type, Function0<? extends T> computeIfAbsent) {
    return tag(JvmClassMappingKt.getJavaClass(type), computeIfAbsent);
  }

  @Override
  public abstract Call clone();
}
